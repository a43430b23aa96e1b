import { filesOfCommand } from "./shell-files.js";
import { normalizePath, shellPipelines, type ShellStage } from "./shell-words.js";

/**
 * Which files a shell command shows (whole or in part) and which it changes, read from the command
 * line alone: for telling when a later call supersedes an earlier one's result.
 */

/** Lines `from`..`to` (1-based, inclusive; `to` is `Infinity` up to the end) of a file a call shows. */
export interface FileView {
  readonly path: string;
  readonly from: number;
  readonly to: number;
}

/** What a shell command shows and changes. */
export interface ShellReading {
  /** The files it shows; only filled when the command does nothing else (see `pureView`). */
  readonly views: readonly FileView[];
  /** Whether the command only shows files (`cat`, `nl`, `sed -n`, `head`, with `cd` and `echo` around them). */
  readonly pureView: boolean;
  /** The files it creates or changes (`sed -i`, a redirection, `tee`, `cp`, `touch`, `rm`, `patch`...). */
  readonly edits: readonly string[];
}

const WHOLE = { from: 1, to: Number.POSITIVE_INFINITY };
/** `cat` flags that number or mark lines without leaving any out. */
const CAT_FLAGS = /^-[nAvEeTtbs]+$/;
/** A `sed -n` script printing line ranges: `12,40p`, `7p`, `30,$p`, several joined by `;`. */
const SED_RANGES = /^\s*\d+(?:\s*,\s*(?:\d+|\$))?\s*p\s*(?:;\s*\d+(?:\s*,\s*(?:\d+|\$))?\s*p\s*)*;?\s*$/;

/** The line ranges of a `sed -n` script of ranges, else `undefined`. */
function sedRanges(script: string): { from: number; to: number }[] | undefined {
  if (!SED_RANGES.test(script)) return undefined;
  const ranges: { from: number; to: number }[] = [];
  for (const part of script.split(";")) {
    const match = /^\s*(\d+)(?:\s*,\s*(\d+|\$))?\s*p\s*$/.exec(part);
    if (!match) continue;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : match[2] === "$" ? Number.POSITIVE_INFINITY : Number(match[2]);
    if (from >= 1 && to >= from) ranges.push({ from, to });
  }
  return ranges.length > 0 ? ranges : undefined;
}

/** The count of `head -n N`, `head -N`, `head --lines=N`, `head` (10); `undefined` for anything else. */
function headCount(flags: readonly string[]): number | undefined {
  if (flags.length === 0) return 10;
  const [first, second] = flags;
  if (flags.length === 2 && first === "-n" && /^\d+$/.test(second!)) return Number(second);
  if (flags.length === 1 && /^-n?\d+$/.test(first!)) return Number(first!.replace(/^-n?/, ""));
  if (flags.length === 1 && /^--lines=\d+$/.test(first!)) return Number(first!.slice(8));
  return undefined;
}

/** The flags and operands of a stage's arguments: flags first, then operands (a `--` ends the flags). */
function split(stage: ShellStage, valueFlags: ReadonlySet<string> = new Set()): { flags: string[]; operands: string[] } {
  const flags: string[] = [];
  const operands: string[] = [];
  for (let position = 1; position < stage.length; position++) {
    const word = stage[position]!;
    if (operands.length === 0 && word === "--") {
      operands.push(...stage.slice(position + 1));
      break;
    }
    if (operands.length === 0 && word.startsWith("-") && word.length > 1) {
      flags.push(word);
      if (valueFlags.has(word) && position + 1 < stage.length) flags.push(stage[++position]!);
    } else operands.push(word);
  }
  return { flags, operands };
}

/** The ranges a filter stage keeps of its input's lines (`sed -n '10,20p'`, `head -n 5`), else `undefined`. */
function filterRanges(stage: ShellStage): { from: number; to: number }[] | undefined {
  const program = stage[0];
  if (program === "sed") {
    const { flags, operands } = split(stage, new Set(["-e"]));
    const script = flags.length === 3 && flags[0] === "-n" && flags[1] === "-e" ? flags[2] : flags.length === 1 && flags[0] === "-n" ? operands.shift() : undefined;
    return script !== undefined && operands.length === 0 ? sedRanges(script) : undefined;
  }
  if (program === "head") {
    const { flags, operands } = split(stage, new Set(["-n"]));
    const count = headCount(flags);
    return count !== undefined && count > 0 && operands.length === 0 ? [{ from: 1, to: count }] : undefined;
  }
  return undefined;
}

/** The views of a pipeline's first stage, reading files: `cat`, `nl`, `sed -n RANGES FILE`, `head FILE`; else `undefined`. */
function sourceViews(stage: ShellStage, cwd: string | undefined): FileView[] | undefined {
  const program = stage[0];
  if (program === "cat" || program === "nl") {
    const { flags, operands } = split(stage, program === "nl" ? NL_VALUE_FLAGS : undefined);
    const flagsOk = program === "cat" ? flags.every((flag) => CAT_FLAGS.test(flag)) : nlFlagsOk(flags);
    if (!flagsOk || operands.length === 0 || (program === "nl" && operands.length > 1)) return undefined;
    return operands.map((operand) => ({ path: normalizePath(operand, cwd), ...WHOLE }));
  }
  if (program === "sed" || program === "head") {
    // The same stage with its file operands taken off, read as a filter.
    const { operands } = split(stage, new Set(program === "sed" ? ["-e"] : ["-n"]));
    const files = program === "sed" ? operands.slice(stage.includes("-e") ? 0 : 1) : operands;
    if (files.length !== 1) return undefined;
    const ranges = filterRanges(stage.slice(0, stage.length - 1));
    return ranges?.map((range) => ({ path: normalizePath(files[0]!, cwd), ...range }));
  }
  return undefined;
}

/** `nl` flags given with a value as the next word. */
const NL_VALUE_FLAGS: ReadonlySet<string> = new Set(["-b", "-n", "-w", "-s"]);

/** `nl` flags that number every line (`-ba`, `-b a`) and format the numbers. */
function nlFlagsOk(flags: readonly string[]): boolean {
  for (let position = 0; position < flags.length; position++) {
    const flag = flags[position]!;
    if (flag === "-ba") continue;
    if (flag === "-b" && flags[position + 1] === "a") position++;
    else if ((flag === "-n" || flag === "-w" || flag === "-s") && position + 1 < flags.length) position++;
    else if (/^-(?:n(?:ln|rn|rz)|w\d+)$/.test(flag)) continue;
    else return false;
  }
  return true;
}

/** The directory a command moves to first (`cd DIR && ...`), if it does. */
function leadingCd(command: string): string | undefined {
  return /^\s*cd\s+([\w./@+-]+)\s*(?:&&|;|\n)/.exec(command)?.[1];
}

/**
 * What a shell command shows and changes. A pipeline shows a file when it is `cat`/`nl` of it (all
 * of it, or the ranges a following `sed -n 'A,Bp'` or `head -n N` keeps), `sed -n 'A,Bp' FILE` or
 * `head -n N FILE`; `cd DIR` and `echo` around such pipelines are allowed (a `cd` moves relative
 * paths). Anything else (another program, a second filter, a redirection, a substitution) makes it
 * more than a view. Changes are read as the artifact index reads them (see `filesOfCommand`).
 */
export function readShellCommand(command: string): ShellReading {
  const cwd = leadingCd(command);
  const edits = filesOfCommand(command)
    .filter((touch) => touch.kind !== "read")
    .map((touch) => normalizePath(touch.path, cwd));
  const pipelines = shellPipelines(command);
  const views: FileView[] = [];
  let pureView = pipelines !== undefined && edits.length === 0;
  let here = undefined as string | undefined;
  for (const pipeline of pipelines ?? []) {
    if (!pureView) break;
    const [first, ...rest] = pipeline;
    if (pipeline.length === 1 && first![0] === "cd" && first!.length === 2) {
      here = here === undefined ? first![1]! : normalizePath(first![1]!, here);
      continue;
    }
    if (pipeline.length === 1 && first![0] === "echo") continue;
    const source = sourceViews(first!, here);
    if (source === undefined || rest.length > 1) {
      pureView = false;
      break;
    }
    if (rest.length === 0) {
      views.push(...source);
      continue;
    }
    // A filter keeps ranges of one whole file's lines.
    const ranges = source.length === 1 && source[0]!.from === 1 && source[0]!.to === Number.POSITIVE_INFINITY ? filterRanges(rest[0]!) : undefined;
    if (ranges === undefined) {
      pureView = false;
      break;
    }
    views.push(...ranges.map((range) => ({ path: source[0]!.path, ...range })));
  }
  pureView &&= views.length > 0;
  return { views: pureView ? views : [], pureView, edits };
}
