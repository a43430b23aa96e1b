/**
 * docs/evaluation.md's tables and the README's sentence of figures are made from the committed
 * bench/eval-results.json by bench/eval/doc-tables.ts: the doc must hold exactly what it makes.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DOC_PATH, docTables, fillDoc, readmeSentence, readResults, type EvalResults } from "../../bench/eval/doc-tables.js";

const results = readResults();
const doc = readFileSync(DOC_PATH, "utf8");

/** `results` with the default's reply grounding at the first window changed to `grounding`. */
function withGrounding(grounding: number): EvalResults {
  const [first, ...rest] = results.windows;
  return { ...results, windows: [{ ...first!, rows: first!.rows.map((row) => (row.system === "autoCompaction" ? { ...row, grounding } : row)) }, ...rest] };
}

describe("docs/evaluation.md's tables", () => {
  it("are what npm run eval:tables makes from the committed bench/eval-results.json", () => {
    expect(fillDoc(doc, results)).toBe(doc);
  });

  it("hold every table the script makes, each once", () => {
    const marked = [...doc.matchAll(/<!-- eval-table:([\w-]+) -->/gu)].map((match) => match[1]);
    expect(marked.sort()).toEqual([...docTables(results).keys()].sort());
  });

  it("change with a figure of the results (the check can fail)", () => {
    const changed = fillDoc(doc, withGrounding(0.5));
    expect(changed).not.toBe(doc);
    expect(changed).toContain("| **autoCompaction** | 0.500 |");
  });

  it("cannot be filled into a doc that lost a table's markers", () => {
    expect(() => fillDoc(doc.replace("<!-- /eval-table:grounding -->", ""), results)).toThrow("docs/evaluation.md lacks the markers <!-- eval-table:grounding --> … <!-- /eval-table:grounding -->");
  });
});

describe("the README's sentence of figures", () => {
  it("is the one bench/eval/doc-tables.ts makes from the committed results", () => {
    const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8").replace(/\s+/gu, " ");
    expect(readmeSentence(results)).toBe(
      "On 32 recorded agent sessions, `autoCompaction` cost 0.79-0.97× as much as no compaction at windows of 16,000 to 200,000 tokens, counting the re-reads a lost context forces, with no call over the window",
    );
    expect(readme).toContain(readmeSentence(results));
  });
});
