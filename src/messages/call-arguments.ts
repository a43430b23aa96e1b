import { filesOfCommand, type FileTouch } from "./shell-files.js";

/** How the artifact index reads a tool call's arguments: which keys hold files, commands, URLs and ids. @internal */

const IDENTIFIER_KEY = /(?:^|_)(?:id|ids|number|code|uuid|key)$/i;
const PATH_KEY = /^(?:path|paths|file|files|file_path|filepath|filename|target_file|source|destination_path|dir|directory)$/i;
const URL_KEY = /^(?:url|urls|href|link)$/i;
const COMMAND_KEY = /^(?:command|cmd|script|shell)$/i;

/**
 * What a walk of a call's arguments reports, in the order it finds them. Without `addUrl` or
 * `addIdentifier`, the walk looks for neither (a walk for files).
 */
export interface ArgumentSink {
  /** A file a path argument names, or a file its shell command touches. */
  addFile(touch: FileTouch): void;
  /** A shell command (its files are reported through `addFile` after it). */
  addCommand?(command: string): void;
  addUrl?(url: string): void;
  addIdentifier?(identifier: string): void;
}

/** A sink that keeps the files alone, in order. */
export class FileTouches implements ArgumentSink {
  readonly touches: FileTouch[] = [];

  addFile(touch: FileTouch): void {
    this.touches.push(touch);
  }
}

/** Reports the files, commands, URLs and ids of a call's arguments (`value`, under `key`) to `sink`. */
export function walkArguments(toolName: string, value: unknown, key: string, sink: ArgumentSink): void {
  if (typeof value === "string") {
    if (COMMAND_KEY.test(key)) {
      sink.addCommand?.(value);
      for (const touch of filesOfCommand(value)) sink.addFile(touch);
    } else if (PATH_KEY.test(key)) {
      sink.addFile({ path: value, kind: fileKindOfTool(toolName) });
    } else if (sink.addUrl === undefined || sink.addIdentifier === undefined) {
      return;
    } else if (URL_KEY.test(key)) {
      sink.addUrl(value);
    } else if (IDENTIFIER_KEY.test(key) && value.length <= 120) {
      sink.addIdentifier(value);
    }
    return;
  }
  if (typeof value === "number") {
    if (sink.addUrl !== undefined && sink.addIdentifier !== undefined && IDENTIFIER_KEY.test(key)) sink.addIdentifier(String(value));
    return;
  }
  if (Array.isArray(value)) {
    // A list under a path or id key holds paths or ids.
    for (const item of value) walkArguments(toolName, item, key, sink);
    return;
  }
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    // str_replace_editor-style tools say what they do in a `command` argument.
    const action = typeof record["command"] === "string" && Object.keys(record).some((childKey) => PATH_KEY.test(childKey)) ? record["command"] : undefined;
    for (const childKey of Object.keys(record)) {
      const child = record[childKey];
      if (action && childKey === "command") continue;
      if (action && PATH_KEY.test(childKey) && typeof child === "string") {
        sink.addFile({ path: child, kind: fileKindOfTool(action) });
        continue;
      }
      walkArguments(toolName, child, childKey, sink);
    }
  }
}

/** How a file tool touches its file, from the tool's (or its `command` argument's) name. */
function fileKindOfTool(name: string): FileTouch["kind"] {
  if (/create|write|new|touch|mkdir/i.test(name)) return "created";
  if (/edit|replace|patch|insert|update|modify|append|delete|remove|rename|move|undo/i.test(name)) return "modified";
  return "read";
}

/**
 * The files of some touches as an index lists them, created, modified then read, each path once: each
 * list in order of last touch, then the lists joined, a path at its first place. For at most as many
 * touches as a list keeps (none is then left out); `undefined` beyond.
 */
export function filesOfTouches(touches: readonly FileTouch[], limit: number): string[] | undefined {
  if (touches.length > limit) return undefined;
  if (touches.length === 1) return [touches[0]!.path];
  const created: string[] = [];
  const modified: string[] = [];
  const read: string[] = [];
  for (const touch of touches) {
    const list = touch.kind === "created" ? created : touch.kind === "modified" ? modified : read;
    const earlier = list.indexOf(touch.path);
    if (earlier !== -1) list.splice(earlier, 1);
    list.push(touch.path);
  }
  if (modified.length === 0 && read.length === 0) return created;
  if (created.length === 0 && read.length === 0) return modified;
  if (created.length === 0 && modified.length === 0) return read;
  return [...new Set([...created, ...modified, ...read])];
}
