import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { headOf } from "../text/code-points.js";
import { messageText } from "./message-text.js";
import type { FileTouch } from "./shell-files.js";
import { walkArguments, type ArgumentSink } from "./call-arguments.js";
import { newestAndMostUsed } from "./artifact-rank.js";
import { errorLinesOf } from "./error-lines.js";
import type { ArtifactIndex, ArtifactIndexLimits } from "./artifact-index.js";

/** The accumulation of an artifact index from messages, calls and earlier indexes. @internal */

/** The default limits of an index's lists. @internal */
export const DEFAULT_LIMITS: Required<ArtifactIndexLimits> = { files: 100, commands: 40, identifiers: 200, urls: 50, errors: 30 };

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

/** Mutable accumulation of an index; `freeze()` gives the plain JSON value. */
export class ArtifactCollector implements ArgumentSink {
  // Each list is made when first written: most collectors (one per hidden result) fill one or two.
  #created: Map<string, true> | undefined;
  #modified: Map<string, true> | undefined;
  #read: Map<string, true> | undefined;
  #fileUses: Map<string, number> | undefined;
  #commands: Map<string, true> | undefined;
  #tools: Map<string, number> | undefined;
  #identifiers: Map<string, true> | undefined;
  #urls: Map<string, true> | undefined;
  #errors: Map<string, true> | undefined;
  #leftOut: { created: number; modified: number; read: number } | undefined;

  constructor(readonly limits: Required<ArtifactIndexLimits>) {}

  /** Adds a value as the newest of its list. */
  static #touch(list: Map<string, true>, value: string): void {
    list.delete(value);
    list.set(value, true);
  }

  addIndex(index: ArtifactIndex): void {
    for (const path of index.filesCreated) ArtifactCollector.#touch((this.#created ??= new Map()), path);
    for (const path of index.filesModified) ArtifactCollector.#touch((this.#modified ??= new Map()), path);
    for (const path of index.filesRead) ArtifactCollector.#touch((this.#read ??= new Map()), path);
    for (const path of filesOf(index)) this.#use(path, usesOf(index, path));
    for (const command of index.commands) ArtifactCollector.#touch((this.#commands ??= new Map()), command);
    for (const [tool, count] of Object.entries(index.tools)) this.#countTool(tool, count);
    for (const identifier of index.identifiers) ArtifactCollector.#touch((this.#identifiers ??= new Map()), identifier);
    for (const url of index.urls) ArtifactCollector.#touch((this.#urls ??= new Map()), url);
    for (const error of index.errors) ArtifactCollector.#touch((this.#errors ??= new Map()), error);
    for (const kind of FILE_KINDS) {
      const count = index.filesLeftOut?.[kind];
      if (typeof count === "number" && count > 0) (this.#leftOut ??= { created: 0, modified: 0, read: 0 })[kind] += count;
    }
  }

  addFile(touch: FileTouch): void {
    const list = touch.kind === "created" ? (this.#created ??= new Map()) : touch.kind === "modified" ? (this.#modified ??= new Map()) : (this.#read ??= new Map());
    ArtifactCollector.#touch(list, touch.path);
    this.#use(touch.path, 1);
  }

  #use(path: string, uses: number): void {
    const fileUses = (this.#fileUses ??= new Map());
    fileUses.set(path, (fileUses.get(path) ?? 0) + uses);
  }

  #countTool(name: string, count: number): void {
    const tools = (this.#tools ??= new Map());
    tools.set(name, (tools.get(name) ?? 0) + count);
  }

  addMessage(message: BaseMessage): void {
    const calls: unknown = isAssistantMessage(message) ? message.tool_calls : undefined;
    for (const call of Array.isArray(calls) ? calls : []) {
      if (typeof call !== "object" || call === null || typeof call.name !== "string") continue;
      this.addCall(call.name, call.args);
    }
    const text = messageText(message);
    if (text === "") return;
    for (const url of urlsOf(text)) ArtifactCollector.#touch((this.#urls ??= new Map()), url);
    if (reportsErrors(message)) for (const line of errorLinesOf(text)) ArtifactCollector.#touch((this.#errors ??= new Map()), headOf(line, LINE_LIMIT));
  }

  /** Adds one tool call: its tool's count, and the files, commands, URLs and ids of its arguments. */
  addCall(name: string, args: unknown): void {
    this.#countTool(name, 1);
    walkArguments(name, args, "", this);
  }

  /** Adds a shell command's first line (its files come through `addFile`). */
  addCommand(command: string): void {
    ArtifactCollector.#touch((this.#commands ??= new Map()), headOf(command.trim().split("\n")[0]!, LINE_LIMIT));
  }

  addUrl(url: string): void {
    ArtifactCollector.#touch((this.#urls ??= new Map()), url);
  }

  addIdentifier(identifier: string): void {
    ArtifactCollector.#touch((this.#identifiers ??= new Map()), identifier);
  }

  /** A file list within `limits.files`: its first entries by rank, in their stored order, and how many it leaves out. */
  #cappedFiles(list: Map<string, true> | undefined): { files: string[]; leftOut: number } {
    const entries = list === undefined || list.size === 0 ? [] : [...list.keys()];
    const limit = this.limits.files;
    if (entries.length <= limit) return { files: entries, leftOut: 0 };
    const kept = newestAndMostUsed(entries, (path) => this.#fileUses?.get(path) ?? 1)
      .slice(0, limit)
      .sort((a, b) => a - b);
    return { files: kept.map((position) => entries[position]!), leftOut: entries.length - limit };
  }

  /** `fileUses`: the listed files touched more than once, when there are any. */
  #repeatedUses(listed: readonly (readonly string[])[]): Record<string, number> | undefined {
    let repeated: Record<string, number> | undefined;
    let kept: Set<string> | undefined;
    for (const [path, uses] of this.#fileUses ?? []) {
      if (uses <= 1) continue;
      if (kept === undefined && (listed[0]!.length < (this.#created?.size ?? 0) || listed[1]!.length < (this.#modified?.size ?? 0) || listed[2]!.length < (this.#read?.size ?? 0))) kept = new Set(listed.flat());
      if (kept !== undefined && !kept.has(path)) continue;
      (repeated ??= {})[path] = uses;
    }
    return repeated;
  }

  /** The file paths `freeze()` would list, in the order `filesOf` gives them. */
  files(): string[] {
    const created = this.#cappedFiles(this.#created).files;
    const modified = this.#cappedFiles(this.#modified).files;
    const read = this.#cappedFiles(this.#read).files;
    // A list of the collector's own holds no repeats: alone, it is the answer.
    if (modified.length === 0 && read.length === 0) return created;
    if (created.length === 0 && read.length === 0) return modified;
    if (created.length === 0 && modified.length === 0) return read;
    return uniqueFiles(created, modified, read);
  }

  freeze(): ArtifactIndex {
    const created = this.#cappedFiles(this.#created);
    const modified = this.#cappedFiles(this.#modified);
    const read = this.#cappedFiles(this.#read);
    let leftOut: Record<string, number> | undefined;
    const earlier = this.#leftOut ?? NONE_LEFT_OUT;
    if (earlier.created + created.leftOut > 0) (leftOut ??= {})["created"] = earlier.created + created.leftOut;
    if (earlier.modified + modified.leftOut > 0) (leftOut ??= {})["modified"] = earlier.modified + modified.leftOut;
    if (earlier.read + read.leftOut > 0) (leftOut ??= {})["read"] = earlier.read + read.leftOut;
    const fileUses = this.#repeatedUses([created.files, modified.files, read.files]);
    return {
      filesCreated: created.files,
      filesModified: modified.files,
      filesRead: read.files,
      ...(fileUses === undefined ? {} : { fileUses }),
      ...(leftOut === undefined ? {} : { filesLeftOut: leftOut }),
      commands: newest(this.#commands, this.limits.commands),
      tools: this.#tools === undefined ? {} : Object.fromEntries(this.#tools),
      identifiers: newest(this.#identifiers, this.limits.identifiers),
      urls: newest(this.#urls, this.limits.urls),
      errors: newest(this.#errors, this.limits.errors),
    };
  }
}

const FILE_KINDS = ["created", "modified", "read"] as const;
const NONE_LEFT_OUT = Object.freeze({ created: 0, modified: 0, read: 0 });

/** The URLs of a text, in order, trailing punctuation dropped. */
function urlsOf(text: string): string[] {
  if (!text.includes("://")) return [];
  return (text.match(URL_PATTERN) ?? []).map((url) => url.replace(/[.,;:]+$/, ""));
}

/** Whether a message's error lines are indexed: those of what tools and people reported, not of the agent's own plans. */
function reportsErrors(message: BaseMessage): boolean {
  return isToolResultMessage(message) || message.type === "human";
}

/**
 * The index of one message that holds no tool call: what `addMessage` then `freeze()` give on a new
 * collector (its URLs and, for a tool result or a human message, its error lines), without the
 * collector's lists and its freeze, for the one message a hidden result's receipt reads; `empty`
 * itself, when given, for a message with neither.
 */
export function textArtifacts(message: BaseMessage, limits: Required<ArtifactIndexLimits>, empty?: ArtifactIndex): ArtifactIndex {
  const text = messageText(message);
  const urls = urlsOf(text);
  const errorLines = text !== "" && reportsErrors(message) ? errorLinesOf(text) : [];
  if (empty !== undefined && urls.length === 0 && errorLines.length === 0) return empty;
  return {
    ...EMPTY_ARTIFACT_INDEX,
    urls: newestDistinct(urls, limits.urls),
    errors: newestDistinct(errorLines.map((line) => headOf(line, LINE_LIMIT)), limits.errors),
  };
}

/** The newest `limit` distinct values of a list, each at its last place, oldest first: the collector's list of them, then `newest`. */
function newestDistinct(values: readonly string[], limit: number): string[] {
  if (values.length === 0) return [];
  const list = new Map<string, true>();
  for (const value of values) {
    list.delete(value);
    list.set(value, true);
  }
  return newest(list, limit);
}

/** The newest `limit` entries of a list, oldest first. */
function newest(list: Map<string, true> | undefined, limit: number): string[] {
  if (list === undefined || list.size === 0) return [];
  const entries = [...list.keys()];
  return entries.length <= limit ? entries : entries.slice(-limit);
}

/** How many times an index's file was touched: its `fileUses` count, 1 for an index without counts. */
export function usesOf(index: ArtifactIndex, path: string): number {
  const uses = index.fileUses?.[path];
  return typeof uses === "number" && uses > 0 ? uses : 1;
}

/** All file paths of an index, in the order created, modified, read, without repeats. */
export function filesOf(index: ArtifactIndex): string[] {
  return uniqueFiles(index.filesCreated, index.filesModified, index.filesRead);
}

function uniqueFiles(created: readonly string[], modified: readonly string[], read: readonly string[]): string[] {
  return [...new Set([...created, ...modified, ...read])];
}
