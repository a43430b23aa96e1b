/**
 * Every TypeScript example of README.md and docs/*.md, run as written (the package's imports pointed
 * at the sources), printing exactly what examples/readme-output/<name>.txt holds: the same files
 * scripts/check-packed.sh checks the packed package against. Examples that need a service
 * (`needs: postgres`) run in their own suites (test/integration/readme-postgres.test.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readmeExamples } from "../scripts/readme-examples.mjs";
import { relativeLinks, unshippedLinks } from "../scripts/shipped-links.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const examples = readmeExamples(root);

/** The package's entry points, as the sources a clone runs. */
const ENTRY_POINTS: Record<string, string> = {
  "langchain-compaction": join(root, "src", "index.ts"),
  "langchain-compaction/middleware": join(root, "src", "middleware", "index.ts"),
  "langchain-compaction/inspector": join(root, "src", "inspector", "index.ts"),
  "langchain-compaction/sqlite": join(root, "src", "store", "index.ts"),
  "langchain-compaction/extend": join(root, "src", "extend", "index.ts"),
};

/**
 * Write an example inside node_modules (so its imports of LangChain resolve; a directory per clone,
 * since node_modules may be shared) with the package's imports pointed at the sources, run it, and
 * give what it printed, as `node` prints it.
 */
async function runExample(name: string, code: string): Promise<string> {
  const clone = createHash("sha256").update(root).digest("hex").slice(0, 12);
  const directory = join(root, "node_modules", ".cache", `readme-examples-${clone}`);
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.mts`);
  let source = code;
  for (const [specifier, path] of Object.entries(ENTRY_POINTS)) source = source.replaceAll(JSON.stringify(specifier), JSON.stringify(path));
  writeFileSync(file, source);
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  await import(pathToFileURL(file).href);
  return log.mock.calls.map((args) => `${format(...args)}\n`).join("");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("README and docs examples", () => {
  it("finds the examples where they are, each with its expected output and none without", () => {
    expect(examples.map(({ name, file, needs }) => [file, name, needs])).toEqual([
      ["README.md", "quick-start", []],
      ["docs/inspector.md", "inspector", []],
      ["docs/integrations.md", "tool-result-hiding", []],
      ["docs/integrations.md", "langgraph", []],
      ["docs/integrations.md", "create-agent", []],
      ["docs/integrations.md", "lcel", []],
      ["docs/langgraph.md", "compacting-node", []],
      ["docs/langgraph.md", "sqlite-storage", []],
      ["docs/langgraph.md", "recall-tool", []],
      ["docs/langgraph.md", "postgres-workers", ["postgres"]],
      ["docs/langgraph.md", "erase-thread-sqlite", []],
      ["docs/langgraph.md", "erase-thread", []],
      ["docs/langgraph.md", "chat-history", []],
      ["docs/migrating.md", "migration", []],
      ["docs/reference.md", "auto-compaction-options", []],
      ["docs/reference.md", "token-counting", []],
      ["docs/strategies.md", "superseded-results", []],
      ["docs/strategies.md", "summaries", []],
      ["docs/strategies.md", "cache-anchors", []],
      ["docs/strategies.md", "prompt-caching", []],
    ]);
    const outputs = readdirSync(join(root, "examples", "readme-output")).sort();
    expect(outputs).toEqual(examples.map((example) => `${example.name}.txt`).sort());
  });

  it.each(examples.filter((example) => example.needs.length === 0).map((example) => [example.name, example] as const))(
    "%s runs and prints what examples/readme-output says",
    async (name, example) => {
      expect(existsSync(example.expectedPath)).toBe(true);
      expect(await runExample(name, example.code)).toBe(readFileSync(example.expectedPath, "utf8"));
    },
  );

  it("shows the printed output right after an example that says so: what examples/readme-output holds", () => {
    const shown: [string, string][] = [];
    for (const file of new Set(examples.map((example) => example.file))) {
      const text = readFileSync(join(root, file), "utf8");
      for (const [, name, output] of text.matchAll(/<!-- example: ([a-z0-9-]+)[^\n]*\n```ts\n[\s\S]*?\n```\n\nIt prints:\n\n```text\n([\s\S]*?)```\n/g)) {
        shown.push([name!, output!]);
      }
    }
    expect(shown.map(([name]) => name)).toEqual(["quick-start"]);
    for (const [name, output] of shown) expect(output).toBe(readFileSync(join(root, "examples", "readme-output", `${name}.txt`), "utf8"));
  });

  it("imports the package by name, never by a relative path", () => {
    const relative = examples.filter((example) => /from "\.{1,2}\//.test(example.code)).map((example) => example.name);
    expect(relative).toEqual([]);
  });
});

describe("README", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const docs = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => join("docs", name))];

  it("names the demo and test commands a fresh clone (and CI) uses, and how to install from a clone", () => {
    expect(readme).toContain("npm ci && npm run demo");
    expect(readme).toContain("npm ci && npm test");
    const install = readme.slice(readme.indexOf("## Install\n"), readme.indexOf("### Running the examples\n"));
    expect(install).toContain("The package is not on npm yet");
    expect(install).toContain("```sh\ngit clone <url> langchain-compaction && cd langchain-compaction && npm ci && npm pack\n```");
    const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
    expect(install).toContain(`npm install /path/to/langchain-compaction/langchain-compaction-${version}.tgz @langchain/core @langchain/langgraph\n`);
    // What better-sqlite3 compiles with when its prebuilt binary cannot be downloaded.
    for (const tool of ["`python3`", "`make`", "`g++`"]) expect(install).toContain(tool);
  });

  it("opens with the recommended path, autoCompaction in createAgent, and one sentence of figures", () => {
    const intro = readme.slice(0, readme.indexOf("## Install\n"));
    expect(intro.match(/\d[×x](?![a-z0-9])/g)).toEqual(["7×"]);
    const first = examples[0]!;
    expect([first.file, first.name]).toEqual(["README.md", "quick-start"]);
    // One import and one call on the common path.
    expect(first.code).toContain('import { autoCompactionMiddleware } from "langchain-compaction/middleware";');
    for (const call of ["autoCompactionMiddleware({ contextWindow", "createAgent("]) expect(first.code).toContain(call);
    expect(readme.indexOf("## Quick start")).toBeLessThan(readme.indexOf("## Pick a strategy"));
  });

  it("says how to run the examples: .mts or a module project with tsx, and require from CommonJS", () => {
    const running = readme.slice(readme.indexOf("### Running the examples\n"), readme.indexOf("## Pick a strategy"));
    expect(running).toContain("npx tsx quick-start.mts");
    expect(running).toContain("npm pkg set type=module");
    expect(running).toContain('require("langchain-compaction")');
  });

  it("puts the two set-up commands and the quick start on the first screen, in under 250 lines", () => {
    const lines = readme.split("\n");
    expect(lines.length).toBeLessThan(250);
    const lineOf = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(lineOf("npm ci && npm run demo")).toBeLessThan(40);
    expect(lineOf("npm ci && npm test")).toBeLessThan(40);
    expect(lineOf("## Quick start")).toBeLessThan(50);
  });

  it("ends every comment of the quick start with a whole sentence", () => {
    const comments = examples[0]!.code.split("\n").filter((line) => /^\s*\/\/ /.test(line) || / \/\/ /.test(line));
    const cut = comments.filter((line) => /(\w'|[,;:]|\b(the|a|of|and|than))\s*$/.test(line) && !/\/\/ .*[.:]\s*$/.test(line));
    expect(cut).toEqual([]);
  });

  it("keeps a place for the migration guide", () => {
    expect(readme.split("\n").filter((line) => line.startsWith("## Migrating"))).toEqual(["## Migrating from LangChain's middleware"]);
  });

  it("speaks to users: no internal documents, seeds or issue numbers", () => {
    const internal = /\bseed \d|\bissue #?\d|\b[Rr]equirement \d|\bR\d+\b|DESIGN\.md|design doc/;
    expect(docs.filter((file) => internal.test(readFileSync(join(root, file), "utf8")))).toEqual([]);
  });

  it("ships Markdown that links only to what the package ships (package.json \"files\")", () => {
    const { files } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files: string[] };
    const shipped = files.flatMap((entry) => {
      const path = join(root, entry);
      if (!existsSync(path)) return [];
      if (!statSync(path).isDirectory()) return [entry];
      return readdirSync(path, { recursive: true, withFileTypes: true })
        .filter((item) => item.isFile())
        .map((item) => relative(root, join(item.parentPath, item.name)));
    });
    expect(shipped).toContain("docs/reference.md");
    expect(unshippedLinks(shipped)).toEqual([]);
  });

  it("finds the links a shipped Markdown file has, and those to unshipped files", () => {
    expect(relativeLinks("[a](docs/a.md#x) [b](https://x.dev/y) [c](#local) [d](../bench/README.md)")).toEqual(["docs/a.md", "../bench/README.md"]);
    const text: Record<string, string> = { "README.md": "[ok](docs/b.md) [no](examples/demo.ts) [dir](docs/)", "docs/b.md": "[up](../README.md) [out](../test/x.ts)" };
    expect(unshippedLinks(["README.md", "docs/b.md"], (file) => text[file]!)).toEqual([
      { file: "README.md", target: "examples/demo.ts" },
      { file: "docs/b.md", target: "../test/x.ts" },
    ]);
  });

  it("links only to files that exist", () => {
    const broken: string[] = [];
    for (const file of docs) {
      for (const [, target] of readFileSync(join(root, file), "utf8").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        // docs/migration/ is written separately; a link to it is the README's placeholder.
        if (target === "docs/migration/") continue;
        if (!existsSync(join(root, dirname(file), target!))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
