import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { compactionMarkerOf } from "../types.js";
import { ArtifactCollector, DEFAULT_LIMITS, EMPTY_ARTIFACT_INDEX, textArtifacts } from "./artifact-collector.js";
import { FileTouches, filesOfTouches, walkArguments } from "./call-arguments.js";

export { filesOfCommand } from "./shell-files.js";
export { EMPTY_ARTIFACT_INDEX, filesOf, usesOf } from "./artifact-collector.js";

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
  if (previous.length === 0 && messages.length === 1) {
    // One message without calls (a result a receipt reads): its text alone, without a collector.
    const only = messages[0]!;
    if (!artifactsOf(only) && !holdsCalls(only)) {
      return isToolResultMessage(only) && compactionMarkerOf(only)?.hidden === true ? emptyIndex() : textArtifacts(only, withDefaults(limits));
    }
  }
  const collector = new ArtifactCollector(withDefaults(limits));
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

/** The limits in force: the defaults themselves when none is given. */
function withDefaults(limits: ArtifactIndexLimits): Required<ArtifactIndexLimits> {
  for (const _key in limits) return { ...DEFAULT_LIMITS, ...limits };
  return DEFAULT_LIMITS;
}

/**
 * `extractArtifacts([message])`, or {@link EMPTY_ARTIFACT_INDEX} itself when that holds nothing (most
 * tool results), without building an index for it. @internal
 */
export function messageArtifacts(message: BaseMessage): ArtifactIndex {
  if (!artifactsOf(message) && !holdsCalls(message)) {
    return isToolResultMessage(message) && compactionMarkerOf(message)?.hidden === true ? EMPTY_ARTIFACT_INDEX : textArtifacts(message, DEFAULT_LIMITS, EMPTY_ARTIFACT_INDEX);
  }
  const index = extractArtifacts([message]);
  return isEmptyArtifactIndex(index) ? EMPTY_ARTIFACT_INDEX : index;
}

/** Whether a message is an assistant message with tool calls (which the collector reads). */
function holdsCalls(message: BaseMessage): boolean {
  if (!isAssistantMessage(message)) return false;
  const calls: unknown = message.tool_calls;
  return Array.isArray(calls) && calls.length > 0;
}

/** A new index with nothing in it (lists of its own, as a collector's `freeze()` gives). */
function emptyIndex(): ArtifactIndex {
  return { filesCreated: [], filesModified: [], filesRead: [], commands: [], tools: {}, identifiers: [], urls: [], errors: [] };
}

/**
 * The artifact index of one tool call (its tool, and the files, commands, URLs and ids of its
 * arguments), merged into earlier indexes: what `extractArtifacts` gives for an assistant message
 * holding that call alone, without building one. @internal
 */
export function callArtifacts(call: { readonly name: string; readonly args: unknown }, previous: readonly ArtifactIndex[] = []): ArtifactIndex {
  const collector = new ArtifactCollector(DEFAULT_LIMITS);
  for (const index of previous) collector.addIndex(index);
  collector.addCall(call.name, call.args);
  return collector.freeze();
}

/** `filesOf(callArtifacts(call, previous))`, without building the rest of the index. @internal */
export function callFiles(call: { readonly name: string; readonly args: unknown }, previous: readonly ArtifactIndex[] = []): string[] {
  const withFiles = previous.filter((index) => index.filesCreated.length + index.filesModified.length + index.filesRead.length > 0);
  if (withFiles.length === 0) {
    // The call's own touches, listed without a collector while none can be left out.
    const sink = new FileTouches();
    walkArguments(call.name, call.args, "", sink);
    const files = filesOfTouches(sink.touches, DEFAULT_LIMITS.files);
    if (files !== undefined) return files;
  }
  const collector = new ArtifactCollector(DEFAULT_LIMITS);
  for (const index of withFiles) collector.addIndex(index);
  collector.addCall(call.name, call.args);
  return collector.files();
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
