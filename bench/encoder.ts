/**
 * The package's encoder (`BpeEncoder`, o200k_base) against js-tiktoken, gpt-tokenizer and tiktoken
 * (WASM), in one process, on the same texts, every count checked against js-tiktoken's:
 *
 *   npm run bench:encoder                          # = npx tsx bench/encoder.ts, the 32 recorded sessions
 *   npx tsx bench/encoder.ts --traces path/to/file.jsonl --runs 5
 *
 * Texts (see `encoder-texts.ts`): every text of the recorded sessions, one at a time (content, tool
 * calls' names, JSON arguments and ids); the whitespace-heavy ones among them; generated whitespace-
 * heavy tool outputs; long runs of one piece at 1 000 to 1 000 000 characters. Each encoder counts
 * a class in one pass; the figure is characters per CPU millisecond (`process.cpuUsage`), the median
 * over the runs. "cold": ours on a fresh encoder (empty caches), gpt-tokenizer with its merge cache
 * cleared; "warm": the same texts again. js-tiktoken, gpt-tokenizer and tiktoken merge a piece in
 * quadratic time: a run of one piece is given to them up to 4 000 characters only (base64 is many
 * pieces: every size).
 */
import { clearMergeCache, countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { get_encoding } from "tiktoken";
import { defaultTracesPath } from "../examples/traces.js";
import { BpeEncoder } from "../src/tokens/bpe-encoder.js";
import { LONG_RUNS, sessionTexts, whitespaceOutputs, whitespaceShare, type TextClass } from "./encoder-texts.js";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const tracesPath = flag("--traces") ?? defaultTracesPath();
const runs = Number(flag("--runs") ?? 3);
/** Session texts at least this long, at least this much whitespace, are the whitespace-heavy class. */
const HEAVY_MIN_LENGTH = 500;
const HEAVY_MIN_SHARE = 0.35;
/** The longest run of one piece given to the quadratic encoders. */
const QUADRATIC_MAX_RUN = 4_000;
const RUN_LENGTHS = [1_000, 4_000, 64_000, 1_000_000];

const all = sessionTexts(tracesPath);
const classes: TextClass[] = [
  { name: "sessions: every text", texts: all, quadraticOk: true },
  { name: `sessions: whitespace-heavy (>= ${HEAVY_MIN_LENGTH} chars, >= ${HEAVY_MIN_SHARE * 100}% whitespace)`, texts: all.filter((text) => text.length >= HEAVY_MIN_LENGTH && whitespaceShare(text) >= HEAVY_MIN_SHARE), quadraticOk: true },
  ...whitespaceOutputs().map(({ name, text }) => ({ name: `generated: ${name}`, texts: [text], quadraticOk: true })),
  ...Object.entries(LONG_RUNS).flatMap(([name, make]) =>
    RUN_LENGTHS.map((length) => ({ name: `one run: ${name}, ${length.toLocaleString("en")} chars`, texts: [make(length)], quadraticOk: length <= QUADRATIC_MAX_RUN || name === "base64 blob" })),
  ),
];

const reference = new Tiktoken(o200k);
const wasm = get_encoding("o200k_base");
/** An encoder: a fresh counting function per run (cold), timed once per name (then warm). js-tiktoken first: its counts are the reference. */
interface Family {
  names: string[];
  quadratic: boolean;
  fresh: () => (text: string) => number;
}
const families: Family[] = [
  { names: ["js-tiktoken"], quadratic: true, fresh: () => (text) => reference.encode(text, [], []).length },
  {
    names: ["ours, cold", "ours, warm"],
    quadratic: false,
    fresh: () => {
      const encoder = new BpeEncoder(o200k);
      return (text) => encoder.count(text);
    },
  },
  { names: ["gpt-tokenizer, cold", "gpt-tokenizer, warm"], quadratic: true, fresh: () => (clearMergeCache(), (text) => countTokens(text)) },
  { names: ["tiktoken (WASM)"], quadratic: true, fresh: () => (text) => wasm.encode_ordinary(text).length },
];
const names = families.flatMap((family) => family.names);

/** CPU milliseconds `work` takes. */
function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const characters = (texts: readonly string[]) => texts.reduce((sum, text) => sum + text.length, 0);

const mismatches = new Map(names.map((name) => [name, 0]));
const unchecked: string[] = [];
const rows: string[] = [];
for (const textClass of classes) {
  const { texts } = textClass;
  let expected: number[] | undefined;
  const times = new Map(names.map((name) => [name, [] as number[]]));
  for (const family of families) {
    if (family.quadratic && !textClass.quadraticOk) continue;
    for (let run = 0; run < runs; run++) {
      const count = family.fresh();
      for (const name of family.names) {
        let counts: number[] = [];
        const safe = (text: string) => {
          try {
            return count(text);
          } catch {
            return -1;
          }
        };
        times.get(name)!.push(cpuMs(() => (counts = texts.map(safe))));
        expected ??= counts;
        counts.forEach((value, index) => value !== expected![index] && mismatches.set(name, mismatches.get(name)! + 1));
      }
    }
  }
  // Without js-tiktoken's counts (it would take hours), ours are checked against themselves, cold and warm.
  if (!textClass.quadraticOk) unchecked.push(textClass.name);
  const cells = names.map((name) => (times.get(name)!.length === 0 ? "-" : (characters(texts) / median(times.get(name)!)).toFixed(0)));
  rows.push(`| ${textClass.name} | ${texts.length} | ${characters(texts).toLocaleString("en")} | ${cells.join(" | ")} |`);
}
wasm.free();

console.log(`${tracesPath}; o200k_base; characters per CPU millisecond, median of ${runs} runs ("-": not run, quadratic on one piece)`);
console.log(`| texts | count | characters | ${names.join(" | ")} |`);
console.log(`|---|---|---|${names.map(() => "---|").join("")}`);
for (const row of rows) console.log(row);
console.log(`counts that differ from js-tiktoken's: ${names.map((name) => `${name} ${mismatches.get(name)}`).join(", ")}`);
if (unchecked.length > 0) console.log(`no reference (a quadratic merge would take hours) for: ${unchecked.join("; ")}: ours checked against itself, cold and warm`);
if ([...mismatches.values()].some((count) => count > 0)) process.exitCode = 1;
