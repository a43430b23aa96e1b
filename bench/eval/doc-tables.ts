/**
 * The tables of docs/evaluation.md, made from the committed bench/eval-results.json: each table sits
 * between `<!-- eval-table:<name> -->` and `<!-- /eval-table:<name> -->` in the doc, and nothing
 * else writes it. test/eval/doc-tables.test.ts checks that the doc holds what this makes.
 *
 *   npm run eval:tables                           # rewrite the tables in docs/evaluation.md
 *   tsx bench/eval/doc-tables.ts --check          # exit 1 when a table differs from the JSON
 *   tsx bench/eval/doc-tables.ts --readme         # print the README's sentence of figures
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fmtCost, fmtInt, fmtRatio, fmtShare } from "./report-format.js";
import { ANTHROPIC_ANCHORED, ANTHROPIC_AUTOMATIC, recallRowName } from "./report-tables.js";
import { recallTable, type RecallTargetRow } from "./report-recall.js";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The committed results and the doc whose tables they fill. */
export const RESULTS_PATH = resolve(projectRoot, "bench", "eval-results.json");
export const DOC_PATH = resolve(projectRoot, "docs", "evaluation.md");

/** The parts of a row of bench/eval-results.json the tables read. */
interface ResultRow extends RecallTargetRow {
  readonly cost: number;
  readonly costWithRereads: number;
  readonly retention: number;
  readonly totals: RecallTargetRow["totals"] & { readonly rereads: number };
}

interface PresetRow {
  readonly system: string;
  readonly kind: string;
  readonly costWithRereads: number;
  readonly vsNone: number;
  readonly vsCheapestLangChain: number;
}

/** The parts of bench/eval-results.json the tables read. */
export interface EvalResults {
  readonly commit: string;
  readonly traceCount: number;
  readonly command: string;
  readonly windows: readonly {
    readonly window: number;
    readonly rows: readonly ResultRow[];
    readonly presetCosts: readonly { readonly prices: string; readonly label: string; readonly rows: readonly PresetRow[] }[];
  }[];
}

/** The systems of the doc's tables, by their name in the results, and how the doc names them. */
const DEFAULT = "autoCompaction";
const FRUGAL = "autoCompaction (frugal: trigger 14,000 tokens, 2 groups kept)";
const DEFAULT_RECALL = recallRowName(DEFAULT);
const FRUGAL_RECALL = recallRowName(FRUGAL);
const NAMES: Readonly<Record<string, string>> = {
  [DEFAULT]: "**autoCompaction** (the default)",
  [DEFAULT_RECALL]: "**autoCompaction** (the default) with recall",
  [FRUGAL_RECALL]: "autoCompaction, frugal, with recall",
  "autoCompaction (summaries at the firing)": "autoCompaction, summaries in the step (`prepare: false`)",
  "autoCompaction (prepared from 0.9 of the way)": "autoCompaction, prepared from 0.9 of the way (`prepare: { at: 0.9 }`)",
  "autoCompaction (agent's model, shared prefix)": "autoCompaction, shared prefix",
  [FRUGAL]: "autoCompaction, frugal (`trigger: { tokens: 14_000 }`, 2 groups)",
};
const nameOf = (system: string) => NAMES[system] ?? system;

const LANGCHAIN = ["ClearToolUsesEdit (createAgent)", "summarizationMiddleware"];
const PRESETS = ["openai-gpt-5", "openai-gpt-4.1", "anthropic-claude", "google-gemini-2.5"];

function table(header: readonly string[], rows: readonly (readonly string[])[], right: ReadonlySet<number>): string {
  const align = header.map((_, column) => (right.has(column) ? "---:" : "---"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

function rowOf(rows: readonly ResultRow[], system: string): ResultRow {
  const row = rows.find((each) => each.system === system);
  if (!row) throw new Error(`bench/eval-results.json has no row "${system}"`);
  return row;
}

/**
 * Rows of one window per system, rows whose figures all equal merged into one (their names joined),
 * the window named on its first row only; no compaction on the first window only (it is the same at
 * every window but for its calls over the window).
 */
function byWindow(results: EvalResults, systems: readonly string[], cells: (row: ResultRow, window: EvalResults["windows"][number]) => string[]): string[][] {
  const out: string[][] = [];
  results.windows.forEach((windowResult, index) => {
    const merged: { names: string[]; cells: string[] }[] = [];
    for (const system of systems) {
      if (system === "no compaction" && index > 0) continue;
      // Rows with recall on are in results from the run that priced recall on.
      if ((system === DEFAULT_RECALL || system === FRUGAL_RECALL) && !windowResult.rows.some((row) => row.system === system)) continue;
      const figures = cells(rowOf(windowResult.rows, system), windowResult);
      const same = merged.find((entry) => entry.cells.join("|") === figures.join("|") && LANGCHAIN.includes(system));
      if (same) same.names.push(nameOf(system));
      else merged.push({ names: [nameOf(system)], cells: figures });
    }
    merged.forEach((entry, position) => out.push([position === 0 ? fmtInt(windowResult.window) : "", entry.names.join(", "), ...entry.cells]));
  });
  return out;
}

/** Cost at the reference prices, against no compaction and the cheapest LangChain row, per preset; calls over the window; retention. */
function costTable(results: EvalResults): string {
  const systems = ["no compaction", ...LANGCHAIN, "toolResultHiding", DEFAULT, "autoCompaction (summaries at the firing)", "autoCompaction (prepared from 0.9 of the way)", "autoCompaction (agent's model, shared prefix)"];
  const rows = byWindow(results, systems, (row, windowResult) => {
    const preset = (prices: string) => windowResult.presetCosts.find((each) => each.prices === prices)!.rows.find((each) => each.system === row.system)!;
    const reference = preset("reference");
    return [
      fmtCost(row.cost),
      fmtRatio(reference.vsNone),
      fmtRatio(reference.vsCheapestLangChain),
      PRESETS.map((prices) => preset(prices).vsCheapestLangChain.toFixed(2)).join(" / "),
      fmtInt(row.totals.callsOverWindow),
      fmtShare(row.retention),
    ];
  });
  return table(["window", "system", "cost", "× none", "× cheapest LangChain", "same, per preset", "calls over the window", "artifact retention"], rows, new Set([2, 3, 4, 5, 6, 7]));
}

/** Cost with re-reads (and recalls, for the rows with recall on), the re-reads and lost words, grounding and calls over the window. */
function rereadsTable(results: EvalResults): string {
  const systems = ["no compaction", ...LANGCHAIN, "toolResultHiding", DEFAULT, DEFAULT_RECALL, FRUGAL, FRUGAL_RECALL];
  const rows = byWindow(results, systems, (row, windowResult) => {
    const none = rowOf(windowResult.rows, "no compaction");
    return [
      fmtCost(row.cost),
      fmtCost(row.costWithRereads),
      fmtRatio(row.costWithRereads / none.costWithRereads),
      fmtInt(row.totals.rereads),
      `${fmtInt(row.totals.lostOwnWords)} / ${fmtInt(row.totals.lostUserWords)}`,
      fmtShare(row.grounding),
      fmtInt(row.totals.callsOverWindow),
    ];
  });
  return table(["window", "system", "cost", "cost with re-reads (and recalls)", "× none", "re-reads", "lost words (own / user)", "reply grounding", "calls over the window"], rows, new Set([2, 3, 4, 5, 6, 7, 8]));
}

/** Reply grounding per system and window. */
function groundingTable(results: EvalResults): string {
  const systems = [...LANGCHAIN, "toolResultHiding", "selectiveThenSummary", DEFAULT, "autoCompaction (agent's model, shared prefix)", FRUGAL];
  const rows = systems.map((system) => [system === DEFAULT ? "**autoCompaction**" : nameOf(system), ...results.windows.map((each) => fmtShare(rowOf(each.rows, system).grounding))]);
  return table(["system", ...results.windows.map((each) => fmtInt(each.window))], rows, new Set(results.windows.map((_, index) => index + 1)));
}

/** Cost as a multiple of no compaction under one price set, at the first three windows; toolResultHiding's row in bold. */
function presetTable(results: EvalResults, prices: string): string {
  const windows = results.windows.slice(0, 3);
  const systems = [...LANGCHAIN, "toolResultHiding", DEFAULT];
  const rows = systems.map((system) => [
    system,
    ...windows.map((windowResult) => {
      const ratio = windowResult.presetCosts.find((each) => each.prices === prices)!.rows.find((each) => each.system === system)!.vsNone;
      return system === "toolResultHiding" ? `**${fmtRatio(ratio)}**` : fmtRatio(ratio);
    }),
  ]);
  return table(["system", ...windows.map((each) => fmtInt(each.window))], rows, new Set(windows.map((_, index) => index + 1)));
}

/** Every table of docs/evaluation.md, by its marker name. */
export function docTables(results: EvalResults): ReadonlyMap<string, string> {
  return new Map([
    ["cost", costTable(results)],
    ["anthropic-automatic", presetTable(results, ANTHROPIC_AUTOMATIC)],
    ["anthropic-prefix", presetTable(results, "anthropic-claude")],
    ["anthropic-anchored", presetTable(results, ANTHROPIC_ANCHORED)],
    ["grounding", groundingTable(results)],
    ["rereads", rereadsTable(results)],
    ["recall", recallTable(results.windows, [DEFAULT_RECALL, FRUGAL_RECALL], nameOf)],
  ]);
}

/**
 * The README's one sentence of figures: the default's cost with re-reads as a multiple of no
 * compaction's, lowest to highest over the windows run, and its calls over the window. The README
 * quotes it as is (whitespace aside); test/eval/doc-tables.test.ts checks that it does.
 */
export function readmeSentence(results: EvalResults): string {
  const ratios = results.windows.map((windowResult) => rowOf(windowResult.rows, DEFAULT).costWithRereads / rowOf(windowResult.rows, "no compaction").costWithRereads);
  const over = results.windows.reduce((sum, windowResult) => sum + rowOf(windowResult.rows, DEFAULT).totals.callsOverWindow, 0);
  const windows = results.windows.map((each) => each.window);
  const [low, high] = [Math.min(...ratios), Math.max(...ratios)].map((ratio) => ratio.toFixed(2));
  return (
    `On ${results.traceCount} recorded agent sessions, \`autoCompaction\` cost ${low === high ? low : `${low}-${high}`}× as much as no compaction at windows ` +
    `of ${fmtInt(Math.min(...windows))} to ${fmtInt(Math.max(...windows))} tokens, counting the re-reads a lost context forces, ` +
    (over === 0 ? "with no call over the window" : `with ${fmtInt(over)} calls over the window`)
  );
}

/** The source line written above each table: where its figures come from. */
export function sourceLine(results: EvalResults): string {
  return `<!-- generated by npm run eval:tables from bench/eval-results.json (\`${results.command}\` at ${results.commit}); do not edit -->`;
}

/**
 * `doc` with each marked table replaced by the one made from `results`.
 * @throws {Error} when the doc lacks a table's markers, or has markers of a table not made here.
 */
export function fillDoc(doc: string, results: EvalResults): string {
  const tables = docTables(results);
  const named = [...doc.matchAll(/<!-- eval-table:([\w-]+) -->/gu)].map((match) => match[1]!);
  const unknown = named.filter((name) => !tables.has(name));
  if (unknown.length > 0) throw new Error(`docs/evaluation.md marks tables this script does not make: ${unknown.join(", ")}`);
  let out = doc;
  for (const [name, text] of tables) {
    const open = `<!-- eval-table:${name} -->`;
    const close = `<!-- /eval-table:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`docs/evaluation.md lacks the markers ${open} … ${close}`);
    out = `${out.slice(0, start + open.length)}\n${sourceLine(results)}\n\n${text}\n\n${out.slice(end)}`;
  }
  return out;
}

/** The committed results, as the tables read them. */
export function readResults(path = RESULTS_PATH): EvalResults {
  return JSON.parse(readFileSync(path, "utf8")) as EvalResults;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--readme")) {
    console.log(readmeSentence(readResults()));
    process.exit(0);
  }
  const doc = readFileSync(DOC_PATH, "utf8");
  const filled = fillDoc(doc, readResults());
  if (process.argv.includes("--check")) {
    if (filled !== doc) {
      console.error("docs/evaluation.md's tables differ from bench/eval-results.json: run npm run eval:tables");
      process.exitCode = 1;
    }
  } else if (filled !== doc) {
    writeFileSync(DOC_PATH, filled);
    console.log("wrote the tables of docs/evaluation.md from bench/eval-results.json");
  } else {
    console.log("docs/evaluation.md's tables already match bench/eval-results.json");
  }
}
