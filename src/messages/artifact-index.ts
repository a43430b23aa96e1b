import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { compactionMarkerOf } from "../types.js";
import { headOf } from "../text/code-points.js";
import { messageText } from "./message-text.js";
import { filesOfCommand, type FileTouch } from "./shell-files.js";
import { newestAndMostUsed } from "./artifact-rank.js";

export { filesOfCommand } from "./shell-files.js";

/**
 * What the messages that left the context touched (their artifact trail), kept beside every
 * summary so it survives any number of compactions even when a model's summary drops it.
 * Plain JSON: it is stored in the summary message's `response_metadata.compaction.artifacts`.
 * Lists are in order of last use, oldest first, without repeats.
 */
export interface ArtifactIndex {
  readonly filesCreated: readonly string[];
  readonly filesModified: readonly string[];
  readonly filesRead: readonly string[];
  /**
   * How many times each file touched more than once was touched (read, created or modified), merged
   * indexes summed; a file not in it was touched once (so was every file of an index stored by an
   * earlier version). Absent when no file was touched twice. Ranks files when a summary message
   * shows only part of the index.
   */
  readonly fileUses?: Readonly<Record<string, number>>;
  /**
   * How many files each file list left out to keep within `limits.files` (the least recent and least
   * used), summed over the indexes merged into it; absent when none was. A file left out and touched
   * again is listed again and still counted here.
   */
  readonly filesLeftOut?: Readonly<{ created?: number; modified?: number; read?: number }>;
  /**
   * Commands run (first line, at most 200 UTF-16 code units, cut on a code-point boundary), newest
   * last; the newest `limits.commands`.
   */
  readonly commands: readonly string[];
  /** Tool names with how often each was called. */
  readonly tools: Readonly<Record<string, number>>;
  /** Values of identifier arguments (`*_id`, `*_number`, `id`...), e.g. a reservation or user id. */
  readonly identifiers: readonly string[];
  readonly urls: readonly string[];
  /**
   * Error lines from tool results and messages (at most 200 UTF-16 code units each, cut on a
   * code-point boundary), newest last.
   */
  readonly errors: readonly string[];
}

/** How many entries of each list an index keeps. */
export interface ArtifactIndexLimits {
  /**
   * Files of each file list (created, modified, read): the newest and the most used in turn, the
   * others counted in `filesLeftOut`. @default 100
   */
  readonly files?: number;
  /** @default 40 */
  readonly commands?: number;
  /** @default 200 */
  readonly identifiers?: number;
  /** @default 50 */
  readonly urls?: number;
  /** @default 30 */
  readonly errors?: number;
}

const DEFAULT_LIMITS: Required<ArtifactIndexLimits> = { files: 100, commands: 40, identifiers: 200, urls: 50, errors: 30 };

/** An index with nothing in it. */
export const EMPTY_ARTIFACT_INDEX: ArtifactIndex = Object.freeze({
  filesCreated: [],
  filesModified: [],
  filesRead: [],
  commands: [],
  tools: {},
  identifiers: [],
  urls: [],
  errors: [],
});

/** Longest command or error line kept, in UTF-16 code units (cut with `headOf`: never half a pair). */
const LINE_LIMIT = 200;

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>()\]]+/g;
/** Lines that report an error: exception names, tracebacks, test failures, shell and compiler errors. */
const ERROR_LINE =
  /\b[A-Z]\w*(?:Error|Exception)\b|^Traceback \(most recent call last\)|\b(?:error|fatal|panic)\s*:|\bFAIL(?:ED|URE)?\b|\bfailed\b|No such file or directory|command not found|^E\s{2,}/;
/** Diff lines (`+ ...`, `- ...`) quote code, not errors. */
const DIFF_LINE = /^[+-](?![+-])/;
const IDENTIFIER_KEY = /(?:^|_)(?:id|ids|number|code|uuid|key)$/i;
const PATH_KEY = /^(?:path|paths|file|files|file_path|filepath|filename|target_file|source|destination_path|dir|directory)$/i;
const URL_KEY = /^(?:url|urls|href|link)$/i;
const COMMAND_KEY = /^(?:command|cmd|script|shell)$/i;

/** Mutable accumulation of an index; `freeze()` gives the plain JSON value. */
class ArtifactCollector {
  readonly #created = new Map<string, true>();
  readonly #modified = new Map<string, true>();
  readonly #read = new Map<string, true>();
  readonly #fileUses = new Map<string, number>();
  readonly #commands = new Map<string, true>();
  readonly #tools = new Map<string, number>();
  readonly #identifiers = new Map<string, true>();
  readonly #urls = new Map<string, true>();
  readonly #errors = new Map<string, true>();
  readonly #leftOut = { created: 0, modified: 0, read: 0 };

  constructor(readonly limits: Required<ArtifactIndexLimits>) {}

  /** Adds a value as the newest of its list. */
  static #touch(list: Map<string, true>, value: string): void {
    list.delete(value);
    list.set(value, true);
  }

  addIndex(index: ArtifactIndex): void {
    for (const path of index.filesCreated) ArtifactCollector.#touch(this.#created, path);
    for (const path of index.filesModified) ArtifactCollector.#touch(this.#modified, path);
    for (const path of index.filesRead) ArtifactCollector.#touch(this.#read, path);
    for (const path of filesOf(index)) this.#use(path, usesOf(index, path));
    for (const command of index.commands) ArtifactCollector.#touch(this.#commands, command);
    for (const [tool, count] of Object.entries(index.tools)) this.#tools.set(tool, (this.#tools.get(tool) ?? 0) + count);
    for (const identifier of index.identifiers) ArtifactCollector.#touch(this.#identifiers, identifier);
    for (const url of index.urls) ArtifactCollector.#touch(this.#urls, url);
    for (const error of index.errors) ArtifactCollector.#touch(this.#errors, error);
    for (const kind of FILE_KINDS) {
      const count = index.filesLeftOut?.[kind];
      if (typeof count === "number" && count > 0) this.#leftOut[kind] += count;
    }
  }

  addFile(touch: FileTouch): void {
    const list = touch.kind === "created" ? this.#created : touch.kind === "modified" ? this.#modified : this.#read;
    ArtifactCollector.#touch(list, touch.path);
    this.#use(touch.path, 1);
  }

  #use(path: string, uses: number): void {
    this.#fileUses.set(path, (this.#fileUses.get(path) ?? 0) + uses);
  }

  addMessage(message: BaseMessage): void {
    const calls: unknown = isAssistantMessage(message) ? message.tool_calls : undefined;
    for (const call of Array.isArray(calls) ? calls : []) {
      if (typeof call !== "object" || call === null || typeof call.name !== "string") continue;
      this.#tools.set(call.name, (this.#tools.get(call.name) ?? 0) + 1);
      this.#addArguments(call.name, call.args, "");
    }
    const text = messageText(message);
    if (text === "") return;
    for (const url of text.match(URL_PATTERN) ?? []) ArtifactCollector.#touch(this.#urls, url.replace(/[.,;:]+$/, ""));
    // Error lines come from what tools and people reported, not from the agent's own plans.
    if (isToolResultMessage(message) || message.type === "human") {
      for (const line of text.split("\n")) {
        const trimmed = line.trim();
        if (trimmed !== "" && !DIFF_LINE.test(trimmed) && ERROR_LINE.test(trimmed)) ArtifactCollector.#touch(this.#errors, headOf(trimmed, LINE_LIMIT));
      }
    }
  }

  #addArguments(toolName: string, value: unknown, key: string): void {
    if (typeof value === "string") {
      if (COMMAND_KEY.test(key)) {
        ArtifactCollector.#touch(this.#commands, headOf(value.trim().split("\n")[0]!, LINE_LIMIT));
        for (const touch of filesOfCommand(value)) this.addFile(touch);
      } else if (PATH_KEY.test(key)) {
        this.addFile({ path: value, kind: fileKindOfTool(toolName) });
      } else if (URL_KEY.test(key)) {
        ArtifactCollector.#touch(this.#urls, value);
      } else if (IDENTIFIER_KEY.test(key) && value.length <= 120) {
        ArtifactCollector.#touch(this.#identifiers, value);
      }
      return;
    }
    if (typeof value === "number" && IDENTIFIER_KEY.test(key)) {
      ArtifactCollector.#touch(this.#identifiers, String(value));
      return;
    }
    if (Array.isArray(value)) {
      // A list under a path or id key holds paths or ids.
      for (const item of value) this.#addArguments(toolName, item, key);
      return;
    }
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      // str_replace_editor-style tools say what they do in a `command` argument.
      const action =
        typeof record["command"] === "string" && Object.keys(record).some((childKey) => PATH_KEY.test(childKey)) ? record["command"] : undefined;
      for (const [childKey, child] of Object.entries(record)) {
        if (action && childKey === "command") continue;
        if (action && PATH_KEY.test(childKey) && typeof child === "string") {
          this.addFile({ path: child, kind: fileKindOfTool(action) });
          continue;
        }
        this.#addArguments(toolName, child, childKey);
      }
    }
  }

  /** A file list within `limits.files`: its first entries by rank, in their stored order, and how many it leaves out. */
  #cappedFiles(list: Map<string, true>): { files: string[]; leftOut: number } {
    const entries = [...list.keys()];
    const limit = this.limits.files;
    if (entries.length <= limit) return { files: entries, leftOut: 0 };
    const kept = newestAndMostUsed(entries, (path) => this.#fileUses.get(path) ?? 1)
      .slice(0, limit)
      .sort((a, b) => a - b);
    return { files: kept.map((position) => entries[position]!), leftOut: entries.length - limit };
  }

  /** `fileUses`: the listed files touched more than once, when there are any. */
  #repeatedUses(listed: readonly (readonly string[])[]): { fileUses?: Record<string, number> } {
    const capped = listed.some((files, position) => files.length < [this.#created, this.#modified, this.#read][position]!.size);
    const kept = capped ? new Set(listed.flat()) : undefined;
    const repeated = [...this.#fileUses].filter(([path, uses]) => uses > 1 && (kept === undefined || kept.has(path)));
    return repeated.length === 0 ? {} : { fileUses: Object.fromEntries(repeated) };
  }

  freeze(): ArtifactIndex {
    const newest = (list: Map<string, true>, limit: number) => [...list.keys()].slice(-limit);
    const created = this.#cappedFiles(this.#created);
    const modified = this.#cappedFiles(this.#modified);
    const read = this.#cappedFiles(this.#read);
    const leftOut: Record<string, number> = {};
    for (const [kind, list] of [["created", created], ["modified", modified], ["read", read]] as const) {
      const count = this.#leftOut[kind] + list.leftOut;
      if (count > 0) leftOut[kind] = count;
    }
    return {
      filesCreated: created.files,
      filesModified: modified.files,
      filesRead: read.files,
      ...this.#repeatedUses([created.files, modified.files, read.files]),
      ...(Object.keys(leftOut).length > 0 ? { filesLeftOut: leftOut } : {}),
      commands: newest(this.#commands, this.limits.commands),
      tools: Object.fromEntries(this.#tools),
      identifiers: newest(this.#identifiers, this.limits.identifiers),
      urls: newest(this.#urls, this.limits.urls),
      errors: newest(this.#errors, this.limits.errors),
    };
  }
}

const FILE_KINDS = ["created", "modified", "read"] as const;

/** How a file tool touches its file, from the tool's (or its `command` argument's) name. */
function fileKindOfTool(name: string): FileTouch["kind"] {
  if (/create|write|new|touch|mkdir/i.test(name)) return "created";
  if (/edit|replace|patch|insert|update|modify|append|delete|remove|rename|move|undo/i.test(name)) return "modified";
  return "read";
}

/**
 * Extract the artifact trail of some messages, merged into earlier indexes (e.g. the ones stored in
 * summaries being replaced). Deterministic; one pass over the messages.
 *
 * @example
 * const index = extractArtifacts(removedMessages, [previousIndex]);
 * index.filesModified; // ["src/app.ts", ...]
 */
export function extractArtifacts(
  messages: readonly BaseMessage[],
  previous: readonly ArtifactIndex[] = [],
  limits: ArtifactIndexLimits = {},
): ArtifactIndex {
  const collector = new ArtifactCollector({ ...DEFAULT_LIMITS, ...limits });
  for (const index of previous) collector.addIndex(index);
  for (const message of messages) {
    const earlier = artifactsOf(message);
    if (earlier) collector.addIndex(earlier);
    // A hidden tool result's marker keeps its original's index only when it is not empty: its text is the placeholder.
    else if (isToolResultMessage(message) && compactionMarkerOf(message)?.hidden === true) continue;
    else collector.addMessage(message);
  }
  return collector.freeze();
}

/** The artifact index stored in a summary message, if any. */
export function artifactsOf(message: BaseMessage): ArtifactIndex | undefined {
  const marker = compactionMarkerOf(message) as { artifacts?: ArtifactIndex } | undefined;
  return marker?.artifacts;
}

/** Whether an index holds nothing (no file, command, tool, identifier, URL or error line). @internal */
export function isEmptyArtifactIndex(index: ArtifactIndex): boolean {
  return (
    index.filesCreated.length === 0 &&
    index.filesModified.length === 0 &&
    index.filesRead.length === 0 &&
    index.commands.length === 0 &&
    index.identifiers.length === 0 &&
    index.urls.length === 0 &&
    index.errors.length === 0 &&
    index.filesLeftOut === undefined &&
    Object.keys(index.tools).length === 0
  );
}

/** How many times an index's file was touched: its `fileUses` count, 1 for an index without counts. */
export function usesOf(index: ArtifactIndex, path: string): number {
  const uses = index.fileUses?.[path];
  return typeof uses === "number" && uses > 0 ? uses : 1;
}

/** All file paths of an index, in the order created, modified, read, without repeats. */
export function filesOf(index: ArtifactIndex): string[] {
  return [...new Set([...index.filesCreated, ...index.filesModified, ...index.filesRead])];
}
