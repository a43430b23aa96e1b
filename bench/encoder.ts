/**
 * js-tiktoken's Tiktoken against this package's BpeEncoder, in one process, on real trace texts:
 *
 *   npm run bench:encoder                              # = npx tsx bench/encoder.ts, the 32 recorded sessions
 *   npx tsx bench/encoder.ts --traces path/to/file.jsonl --runs 5
 *
 * - "traces": every message's texts (its content, then each tool call's name and JSON arguments,
 *   joined by newlines), counted one message at a time. js-tiktoken: `encode(text, [], []).length`;
 *   ours: `count(text)`, first on a fresh encoder (empty piece cache), then again (warm).
 * - "placeholders": groups of 37 tool results (of at least 250 characters) cut to 250 characters (about 9 250 characters a group,
 *   the size of what one compaction step counts), each group counted once (ours: a fresh encoder,
 *   each group new to it), then all of them again (warm).
 * CPU time is process.cpuUsage (user + system) around each pass; figures are medians over the runs.
 * Every count is checked against js-tiktoken's.
 */
import { readFileSync } from "node:fs";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { defaultTracesPath } from "../examples/traces.js";
import { BpeEncoder } from "../src/tokens/bpe-encoder.js";
import type { RankFile } from "../src/tokens/bpe-ranks.js";

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const tracesPath = flag("--traces") ?? defaultTracesPath();
const runs = Number(flag("--runs") ?? 3);
const GROUP_SIZE = 37;
const PLACEHOLDER_LENGTH = 250;

interface TraceMessage {
  role: string;
  content: string | null;
  tool_calls?: { name: string; args: unknown }[];
}

const sessions = readFileSync(tracesPath, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => (JSON.parse(line) as { messages: TraceMessage[] }).messages);
const texts = sessions.flatMap((messages) =>
  messages.map((message) => [message.content ?? "", ...(message.tool_calls ?? []).flatMap((call) => [call.name, JSON.stringify(call.args)])].join("\n")),
);
const toolResults = sessions.flatMap((messages) =>
  messages.filter((message) => (message.content ?? "").length >= PLACEHOLDER_LENGTH && message.role === "tool").map((message) => message.content!.slice(0, PLACEHOLDER_LENGTH)),
);
const groups: string[][] = [];
for (let start = 0; start + GROUP_SIZE <= toolResults.length; start += GROUP_SIZE) groups.push(toolResults.slice(start, start + GROUP_SIZE));
const characters = (list: readonly string[]) => list.reduce((sum, text) => sum + text.length, 0);
const traceCharacters = characters(texts);
const groupCharacters = characters(groups.flat()) / groups.length;

/** CPU milliseconds `work` takes. */
function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

let mismatches = 0;
function check(expected: number[], actual: number[]): void {
  expected.forEach((count, index) => {
    if (actual[index] !== count) mismatches++;
  });
}

console.log(`${tracesPath}: ${texts.length} messages, ${traceCharacters} characters; ${groups.length} groups of ${GROUP_SIZE} tool results cut to ${PLACEHOLDER_LENGTH} characters (${groupCharacters.toFixed(0)} characters a group); ${runs} runs, medians`);
console.log("| encoding | job | js-tiktoken | ours, cold | ours, warm | speed-up cold / warm |");
console.log("|---|---|---|---|---|---|");
for (const [name, file] of [["o200k_base", o200k], ["cl100k_base", cl100k]] as [string, RankFile][]) {
  const reference = new Tiktoken(file);
  const expectTraces = texts.map((text) => reference.encode(text, [], []).length);
  const expectGroups = groups.map((group) => group.map((text) => reference.encode(text, [], []).length));
  const theirs = { traces: [] as number[], groups: [] as number[] };
  const cold = { traces: [] as number[], groups: [] as number[] };
  const warm = { traces: [] as number[], groups: [] as number[] };
  for (let run = 0; run < runs; run++) {
    theirs.traces.push(cpuMs(() => texts.forEach((text) => reference.encode(text, [], []).length)));
    theirs.groups.push(median(groups.map((group) => cpuMs(() => group.forEach((text) => reference.encode(text, [], []).length)))));
    let ours = new BpeEncoder(file);
    let counts: number[] = [];
    cold.traces.push(cpuMs(() => (counts = texts.map((text) => ours.count(text)))));
    check(expectTraces, counts);
    warm.traces.push(cpuMs(() => (counts = texts.map((text) => ours.count(text)))));
    check(expectTraces, counts);
    ours = new BpeEncoder(file);
    const groupCounts: number[][] = [];
    cold.groups.push(median(groups.map((group) => cpuMs(() => groupCounts.push(group.map((text) => ours.count(text)))))));
    warm.groups.push(median(groups.map((group) => cpuMs(() => groupCounts.push(group.map((text) => ours.count(text)))))));
    check([...expectGroups, ...expectGroups].flat(), groupCounts.flat());
  }
  const perMs = (ms: number) => `${(traceCharacters / ms).toFixed(0)} chars/ms (${((ms * 10_000) / traceCharacters).toFixed(3)} ms / 10k chars)`;
  const per10k = (ms: number) => `${ms.toFixed(3)} ms a group (${((ms * 10_000) / groupCharacters).toFixed(3)} ms / 10k chars)`;
  const ratio = (slow: number, fast: number) => `${(slow / fast).toFixed(1)}x`;
  const [t, c, w] = [median(theirs.traces), median(cold.traces), median(warm.traces)];
  console.log(`| ${name} | traces | ${perMs(t)} | ${perMs(c)} | ${perMs(w)} | ${ratio(t, c)} / ${ratio(t, w)} |`);
  const [tg, cg, wg] = [median(theirs.groups), median(cold.groups), median(warm.groups)];
  console.log(`| ${name} | placeholders | ${per10k(tg)} | ${per10k(cg)} | ${per10k(wg)} | ${ratio(tg, cg)} / ${ratio(tg, wg)} |`);
}
console.log(mismatches === 0 ? "every count equals js-tiktoken's" : `MISMATCHES: ${mismatches} counts differ from js-tiktoken's`);
if (mismatches > 0) process.exitCode = 1;
