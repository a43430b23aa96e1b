import type { BaseMessage } from "@langchain/core/messages";
import { isAssistantMessage, isToolResultMessage } from "./message-types.js";
import { compactionMarkerOf } from "../types.js";
import { messageText } from "./message-text.js";

/**
 * What the messages that left the context touched (seed 002's artifact trail), kept beside every
 * summary so it survives any number of compactions even when a model's summary drops it.
 * Plain JSON: it is stored in the summary message's `response_metadata.compaction.artifacts`.
 * Lists are in order of last use, oldest first, without repeats.
 */
export interface ArtifactIndex {
  readonly filesCreated: readonly string[];
  readonly filesModified: readonly string[];
  readonly filesRead: readonly string[];
  /** Commands run (first line, at most 200 characters), newest last; the newest `limits.commands`. */
  readonly commands: readonly string[];
  /** Tool names with how often each was called. */
  readonly tools: Readonly<Record<string, number>>;
  /** Values of identifier arguments (`*_id`, `*_number`, `id`...), e.g. a reservation or user id. */
  readonly identifiers: readonly string[];
  readonly urls: readonly string[];
  /** Error lines from tool results and messages (at most 200 characters each), newest last. */
  readonly errors: readonly string[];
}

/** How many entries of the unbounded kinds an index keeps (files are never capped). */
export interface ArtifactIndexLimits {
  /** @default 40 */
  readonly commands?: number;
  /** @default 200 */
  readonly identifiers?: number;
  /** @default 50 */
  readonly urls?: number;
  /** @default 30 */
  readonly errors?: number;
}

const DEFAULT_LIMITS: Required<ArtifactIndexLimits> = { commands: 40, identifiers: 200, urls: 50, errors: 30 };

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

const LINE_LIMIT = 200;

const FILE_EXTENSIONS = new Set(
  (
    "py pyi pyx pxd ipynb js mjs cjs ts tsx jsx json jsonl md rst txt cfg ini toml yaml yml lock c h cc cpp hpp rs go java kt rb php sh bash zsh " +
    "html htm css scss xml csv tsv sql log out patch diff in env png jpg jpeg gif svg pdf gz zip tar"
  ).split(" "),
);
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
const TOKEN_CHARS = /^(?:~\/|\.{1,2}\/|\/)?[\w.@+-]+(?:\/[\w.@+-]+)*\/?$/;

/** Whether a shell word names a file or directory (not a flag, a number, a URL or a sed script). */
function looksLikePath(word: string): boolean {
  if (word.length < 2 || word.length > 240 || word.startsWith("-")) return false;
  if (!TOKEN_CHARS.test(word)) return false;
  if (word === "/dev/null" || /^\/(?:dev|proc)\//.test(word)) return false;
  if (word.includes("/")) {
    // A sed or tr script (s/a/b/g) is not a path.
    if (/^[sy]\/.*\/.*\/[gipI0-9]*$/.test(word)) return false;
    return /[A-Za-z]/.test(word);
  }
  const dot = word.lastIndexOf(".");
  return dot > 0 && FILE_EXTENSIONS.has(word.slice(dot + 1).toLowerCase());
}

/** Stands for a quoted string that is code or a pattern, not a file name. */
const QUOTED = "\u0000quoted";

/**
 * Drops heredoc bodies, and replaces single-quoted strings and double-quoted strings with spaces in
 * them (code, sed scripts, search patterns) by a placeholder that still counts as an argument.
 */
function shellSkeleton(command: string): string {
  return command
    .replace(/<<-?\s*(['"]?)(\w+)\1([^\n]*)\n[\s\S]*?(?:\n\2(?=\s|$)|$)/g, (_match, _quote, _tag, rest: string) => ` ${rest} `)
    .replace(/'[^']*'/g, ` ${QUOTED} `)
    .replace(/"([^"]*)"/g, (_match, inner: string) => (/\s/.test(inner) || inner === "" ? ` ${QUOTED} ` : ` ${inner} `));
}

/** Programs whose first operand is a script or pattern (unless given with -e/-f), not a file. */
const SCRIPT_FIRST = new Set(["sed", "awk", "gawk", "perl", "grep", "egrep", "fgrep", "rg", "ag"]);
/** Options whose value is a script, pattern or name, not a file. */
const VALUE_OPTIONS = new Set(["-e", "--expression", "--regexp", "-name", "-iname", "-path", "-ipath", "-regex"]);

interface FileTouch {
  readonly path: string;
  readonly kind: "created" | "modified" | "read";
}

/** The files a shell command touches, with how. */
export function filesOfCommand(command: string): FileTouch[] {
  const touches: FileTouch[] = [];
  const skeleton = shellSkeleton(command);
  // Simple commands, split on the shell's separators.
  for (const part of skeleton.split(/&&|\|\||[;|\n]/)) {
    const words = part.split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const program = words[0]!.split("/").pop()!;
    const editsInPlace = (program === "sed" && words.some((word) => word.startsWith("-i"))) || program === "patch" || program === "rm";
    const scriptGiven = words.some((word) => word === "-e" || word === "-f" || word === "--expression" || word === "--regexp");
    let operands = 0;
    const operandPaths: FileTouch[] = [];
    for (let position = 1; position < words.length; position++) {
      const word = words[position]!;
      const redirect = /^(\d?>>?|&>)(.*)$/.exec(word);
      if (redirect) {
        const target = redirect[2] || words[++position] || "";
        if (looksLikePath(target)) touches.push({ path: target, kind: redirect[1]!.endsWith(">>") ? "modified" : "created" });
        continue;
      }
      if (word.startsWith("<")) continue;
      if (VALUE_OPTIONS.has(word)) {
        position++;
        continue;
      }
      if (word.startsWith("-")) continue;
      operands++;
      // sed's script, grep's pattern: the first operand, unless -e/-f gave it.
      if (operands === 1 && SCRIPT_FIRST.has(program) && !scriptGiven) continue;
      // A pytest node id names its file before "::".
      const path = word.split("::")[0]!;
      if (word === QUOTED || !looksLikePath(path)) continue;
      const kind = program === "touch" || program === "mkdir" || program === "tee" ? "created" : editsInPlace ? "modified" : "read";
      operandPaths.push({ path, kind });
    }
    // cp and mv create their last operand.
    if ((program === "cp" || program === "mv") && operandPaths.length >= 2) operandPaths[operandPaths.length - 1] = { ...operandPaths.at(-1)!, kind: "created" };
    if (program === "cat" && words.length === 1) continue;
    touches.push(...operandPaths);
  }
  return touches;
}

/** Mutable accumulation of an index; `freeze()` gives the plain JSON value. */
class ArtifactCollector {
  readonly #created = new Map<string, true>();
  readonly #modified = new Map<string, true>();
  readonly #read = new Map<string, true>();
  readonly #commands = new Map<string, true>();
  readonly #tools = new Map<string, number>();
  readonly #identifiers = new Map<string, true>();
  readonly #urls = new Map<string, true>();
  readonly #errors = new Map<string, true>();

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
    for (const command of index.commands) ArtifactCollector.#touch(this.#commands, command);
    for (const [tool, count] of Object.entries(index.tools)) this.#tools.set(tool, (this.#tools.get(tool) ?? 0) + count);
    for (const identifier of index.identifiers) ArtifactCollector.#touch(this.#identifiers, identifier);
    for (const url of index.urls) ArtifactCollector.#touch(this.#urls, url);
    for (const error of index.errors) ArtifactCollector.#touch(this.#errors, error);
  }

  addFile(touch: FileTouch): void {
    const list = touch.kind === "created" ? this.#created : touch.kind === "modified" ? this.#modified : this.#read;
    ArtifactCollector.#touch(list, touch.path);
  }

  addMessage(message: BaseMessage): void {
    if (isAssistantMessage(message)) {
      for (const call of message.tool_calls ?? []) {
        this.#tools.set(call.name, (this.#tools.get(call.name) ?? 0) + 1);
        this.#addArguments(call.name, call.args, "");
      }
    }
    const text = messageText(message);
    if (text === "") return;
    for (const url of text.match(URL_PATTERN) ?? []) ArtifactCollector.#touch(this.#urls, url.replace(/[.,;:]+$/, ""));
    // Error lines come from what tools and people reported, not from the agent's own plans.
    if (isToolResultMessage(message) || message.type === "human") {
      for (const line of text.split("\n")) {
        const trimmed = line.trim();
        if (trimmed !== "" && !DIFF_LINE.test(trimmed) && ERROR_LINE.test(trimmed)) ArtifactCollector.#touch(this.#errors, trimmed.slice(0, LINE_LIMIT));
      }
    }
  }

  #addArguments(toolName: string, value: unknown, key: string): void {
    if (typeof value === "string") {
      if (COMMAND_KEY.test(key)) {
        ArtifactCollector.#touch(this.#commands, value.trim().split("\n")[0]!.slice(0, LINE_LIMIT));
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

  freeze(): ArtifactIndex {
    const newest = (list: Map<string, true>, limit: number) => [...list.keys()].slice(-limit);
    return {
      filesCreated: [...this.#created.keys()],
      filesModified: [...this.#modified.keys()],
      filesRead: [...this.#read.keys()],
      commands: newest(this.#commands, this.limits.commands),
      tools: Object.fromEntries(this.#tools),
      identifiers: newest(this.#identifiers, this.limits.identifiers),
      urls: newest(this.#urls, this.limits.urls),
      errors: newest(this.#errors, this.limits.errors),
    };
  }
}

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
    else collector.addMessage(message);
  }
  return collector.freeze();
}

/** The artifact index stored in a summary message, if any. */
export function artifactsOf(message: BaseMessage): ArtifactIndex | undefined {
  const marker = compactionMarkerOf(message) as { artifacts?: ArtifactIndex } | undefined;
  return marker?.artifacts;
}

/** All file paths of an index, in the order created, modified, read, without repeats. */
export function filesOf(index: ArtifactIndex): string[] {
  return [...new Set([...index.filesCreated, ...index.filesModified, ...index.filesRead])];
}

/**
 * The index as text for a summary message: an `<artifact_index>` block, empty sections left out.
 * Every file is listed; commands show the newest `commandsShown`.
 */
export function renderArtifacts(index: ArtifactIndex, commandsShown = 15): string {
  const lines: string[] = [];
  const list = (label: string, values: readonly string[]) => {
    if (values.length > 0) lines.push(`${label}: ${values.join(", ")}`);
  };
  list("files created", index.filesCreated);
  list("files modified", index.filesModified);
  list("files read", index.filesRead);
  const tools = Object.entries(index.tools);
  if (tools.length > 0) lines.push(`tools used: ${tools.map(([name, count]) => `${name} (${count})`).join(", ")}`);
  list("identifiers", index.identifiers);
  list("urls", index.urls);
  const commands = index.commands.slice(-commandsShown);
  if (commands.length > 0) {
    lines.push(`commands run${index.commands.length > commands.length ? ` (newest ${commands.length})` : ""}:`);
    for (const command of commands) lines.push(`- ${command}`);
  }
  if (index.errors.length > 0) {
    lines.push("errors seen:");
    for (const error of index.errors) lines.push(`- ${error}`);
  }
  return lines.length === 0 ? "" : `<artifact_index>\n${lines.join("\n")}\n</artifact_index>`;
}
