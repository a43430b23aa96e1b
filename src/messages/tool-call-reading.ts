import { readShellCommand, type FileView } from "./shell-views.js";
import { normalizePath } from "./shell-words.js";

/**
 * What a tool call shows and changes, for telling when a later call supersedes an earlier call's
 * result: the built-in reading of the common tool shapes, and the form a caller's own reading gives.
 */

/** A tool call as a reading sees it. */
export interface ToolCallRef {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/**
 * What a call shows and changes, as a `supersession.readCall` hook gives it.
 *
 * - `views`: the files the call shows, whole or lines `[first, last]` (1-based, inclusive; `last` may
 *   be `Infinity`). Give them only for a call that does nothing but show them: its result is then
 *   superseded by a later call that shows the same lines or more, or that changes the file.
 * - `edits`: the files the call changes; every earlier view of them is superseded.
 * - `rerun`: a later call with the same name and arguments supersedes the result even when the two
 *   results differ (a test run, a status query). Without it, only a repeated call with the same
 *   result does.
 */
export interface ToolCallReading {
  readonly views?: readonly { readonly path: string; readonly lines?: readonly [number, number] }[];
  readonly edits?: readonly string[];
  readonly rerun?: boolean;
}

/** A reading in the form the analysis uses: paths normalized, whole views as `1..Infinity`. @internal */
export interface CallReading {
  readonly views: readonly FileView[];
  readonly edits: readonly string[];
  readonly rerun: boolean;
  /** Whether the call was read as a shell command (for the receipt's wording). */
  readonly shell: boolean;
}

/** Tool names (lowercased, `-` and spaces as `_`) whose `command` argument is a shell command. */
const SHELL_TOOLS = new Set(["bash", "execute_bash", "shell", "sh", "zsh", "run_shell_command", "run_command", "execute_command", "terminal", "run_terminal_cmd", "exec", "local_shell"]);
/** OpenHands' and Anthropic's file editor tools: a `command` of view/create/str_replace/insert/undo_edit and a `path`. */
const EDITOR_TOOLS = new Set(["str_replace_editor", "str_replace_based_edit_tool", "text_editor", "file_editor", "edit_tool"]);
const READ_TOOLS = new Set(["read", "read_file", "view_file", "open_file", "cat_file", "get_file_contents", "read_text_file"]);
const WRITE_TOOLS = new Set(["write", "write_file", "create_file", "edit", "edit_file", "multi_edit", "multiedit", "str_replace", "replace_in_file", "insert", "append_file", "delete_file", "overwrite_file"]);
const PATH_KEYS = ["path", "file_path", "filepath", "filename", "file", "target_file", "absolute_path"];
/** Arguments a read tool may take that leave it a view of its whole range. */
const READ_NEUTRAL_KEYS = new Set(["encoding", "explanation"]);

const nameKey = (name: string) => name.toLowerCase().replace(/[\s-]+/g, "_");

function pathArg(args: Record<string, unknown>): { key: string; path: string } | undefined {
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return { key, path: value.trim() };
  }
  return undefined;
}

const lineNumber = (value: unknown): number | undefined => (typeof value === "number" && Number.isInteger(value) ? value : undefined);

/**
 * The lines a read call's range arguments ask for: `view_range: [a, b]` (`b` -1: to the end),
 * `start_line`/`end_line`, `offset`/`limit` (the first line and a count), or `undefined` when an
 * argument is not understood (the call is then not read as a view).
 */
function rangeOf(args: Record<string, unknown>, pathKey: string, allowed: ReadonlySet<string>): { from: number; to: number } | undefined {
  const keys = Object.keys(args).filter((key) => key !== pathKey && args[key] !== undefined && args[key] !== null && !allowed.has(key));
  const whole = { from: 1, to: Number.POSITIVE_INFINITY };
  if (keys.length === 0) return whole;
  const set = new Set(keys);
  if (set.size === 1 && set.has("view_range")) {
    const range = args["view_range"];
    if (!Array.isArray(range) || range.length !== 2) return undefined;
    const from = lineNumber(range[0]);
    const to = lineNumber(range[1]);
    if (from === undefined || to === undefined || from < 1 || (to !== -1 && to < from)) return undefined;
    return { from, to: to === -1 ? Number.POSITIVE_INFINITY : to };
  }
  if (keys.every((key) => key === "start_line" || key === "end_line")) {
    const from = args["start_line"] === undefined ? 1 : lineNumber(args["start_line"]);
    const to = args["end_line"] === undefined ? Number.POSITIVE_INFINITY : lineNumber(args["end_line"]);
    return from !== undefined && to !== undefined && from >= 1 && to >= from ? { from, to } : undefined;
  }
  if (keys.every((key) => key === "offset" || key === "limit")) {
    const from = args["offset"] === undefined ? 1 : lineNumber(args["offset"]);
    const limit = args["limit"] === undefined ? Number.POSITIVE_INFINITY : lineNumber(args["limit"]);
    return from !== undefined && limit !== undefined && from >= 1 && limit >= 1 ? { from, to: from + limit - 1 } : undefined;
  }
  return undefined;
}

/** The shell command of a shell tool's arguments: `command` or `cmd` as a string, or `["bash", "-lc", "..."]`. */
function shellCommandOf(args: Record<string, unknown>): string | undefined {
  const command = args["command"] ?? args["cmd"];
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.length === 3 && /^(?:ba|z)?sh$/.test(String(command[0])) && /^-l?c$/.test(String(command[1])) && typeof command[2] === "string") return command[2];
  return undefined;
}

const NOTHING: CallReading = { views: [], edits: [], rerun: false, shell: false };

/**
 * The built-in reading of a call: a shell tool's `command` (see `readShellCommand`; a shell command
 * run again is a rerun), OpenHands' `str_replace_editor` (and Anthropic's text editor: `view` with
 * its `view_range`, `create`/`str_replace`/`insert`/`undo_edit` edit the `path`), and read, write and
 * edit tools by name with a path argument. Any other tool is read as nothing: only a repeat of the
 * same call with the same result supersedes its result.
 */
export function readToolCall(call: ToolCallRef): CallReading {
  const name = nameKey(call.name);
  const args = call.args ?? {};
  if (SHELL_TOOLS.has(name)) {
    const command = shellCommandOf(args);
    if (command === undefined) return NOTHING;
    const reading = readShellCommand(command);
    return { views: reading.views, edits: reading.edits, rerun: true, shell: true };
  }
  if (EDITOR_TOOLS.has(name)) {
    const path = pathArg(args);
    const command = args["command"];
    if (path === undefined || typeof command !== "string") return NOTHING;
    const file = normalizePath(path.path);
    if (command === "view") {
      const range = rangeOf(args, path.key, new Set(["command"]));
      return range === undefined ? { ...NOTHING, rerun: true } : { views: [{ path: file, ...range }], edits: [], rerun: true, shell: false };
    }
    if (["create", "str_replace", "insert", "undo_edit", "write", "append"].includes(command)) return { views: [], edits: [file], rerun: false, shell: false };
    return NOTHING;
  }
  const path = pathArg(args);
  if (path === undefined) return NOTHING;
  if (READ_TOOLS.has(name)) {
    const range = rangeOf(args, path.key, READ_NEUTRAL_KEYS);
    return range === undefined ? { ...NOTHING, rerun: true } : { views: [{ path: normalizePath(path.path), ...range }], edits: [], rerun: true, shell: false };
  }
  if (WRITE_TOOLS.has(name)) return { views: [], edits: [normalizePath(path.path)], rerun: false, shell: false };
  return NOTHING;
}

/** A hook's reading in the analysis's form. @internal */
export function fromHookReading(reading: ToolCallReading): CallReading {
  return {
    views: (reading.views ?? []).map((view) => ({
      path: normalizePath(view.path),
      from: view.lines?.[0] ?? 1,
      to: view.lines?.[1] ?? Number.POSITIVE_INFINITY,
    })),
    edits: (reading.edits ?? []).map((path) => normalizePath(path)),
    rerun: reading.rerun ?? false,
    shell: false,
  };
}
