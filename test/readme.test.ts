import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER } from "../src/index.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The first ```ts block under a heading. */
function codeUnder(heading: string): string {
  const section = readme.slice(readme.indexOf(`## ${heading}`));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error(`no ts block under ## ${heading}`);
  return match[1]!;
}

/** Write a README example next to the sources (so its imports resolve) and run it. */
async function runExample(name: string, code: string): Promise<unknown[][]> {
  const directory = join(root, "node_modules", ".cache", "readme-examples");
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.ts`);
  writeFileSync(
    file,
    code
      .replaceAll('"langchain-compaction"', JSON.stringify(join(root, "src", "index.ts")))
      .replaceAll('"langchain-compaction/inspector"', JSON.stringify(join(root, "src", "inspector", "index.ts"))),
  );
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  await import(pathToFileURL(file).href);
  return log.mock.calls;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("README", () => {
  it("runs the quick start and prints what its comments say", async () => {
    const printed = await runExample("quick-start", codeUnder("Quick start"));
    expect(printed).toEqual([["compacted"], [5], [true], [[]]]);
  });

  it("runs the summaries example offline and prints what its comments say", async () => {
    const printed = await runExample("summaries", codeUnder("Summaries and policies"));
    expect(printed).toEqual([["summarized"], [10], [26], [[]], [[["summarized", "none"]]]]);
  });

  it("runs the prompt-caching example and prints what its comments say", async () => {
    const printed = await runExample("prompt-caching", codeUnder("Prompt caching"));
    expect(printed).toEqual([[1.25], [true, "saves 8,000 per call over 30 calls = 240,000 >= break 11,550"]]);
  });

  it("runs the LangGraph example and prints what its comments say", async () => {
    const printed = await runExample("langgraph", codeUnder("LangGraph"));
    expect(printed).toEqual([[["h1", "a1", "t1", "a2", "t2"]], [`${DEFAULT_HIDDEN_RESULT_PLACEHOLDER} (files: f1)`], [[["compacted", ["t1"], "store"]]], [true]]);
  });

  it("runs the LCEL example and prints what its comments say", async () => {
    const printed = await runExample("lcel", codeUnder("LCEL"));
    expect(printed).toEqual([[["c"]], [[1, 3, 3]], [6], [[2]]]);
  });

  it("runs the inspector example and prints what its comments say", async () => {
    const printed = await runExample("inspector", codeUnder("Inspecting a thread"));
    expect(printed).toEqual([[["message", "message", "hidden", "message", "message"]], [[["toolResultHiding", "compacted", 1]]], ["Thread t1"]]);
  });

  it("names the two set-up commands that CI and a fresh clone use", () => {
    expect(readme).toContain("npm ci && npm run demo");
    expect(readme).toContain("npm ci && npm test");
  });
});
