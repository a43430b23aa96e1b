// The code examples of README.md and docs/*.md, and what each prints.
//
// An example is a ```ts block right after a marker line `<!-- example: NAME -->` (or
// `<!-- example: NAME, needs: postgres -->` for one that needs a service the scratch project does not
// have). What it prints, line by line as `node` prints it, is in examples/readme-output/NAME.txt.
// test/readme.test.ts runs every example against the sources; scripts/check-packed.sh runs them
// against the packed package, as ESM and as CommonJS:
//
//   node scripts/readme-examples.mjs write <directory>   # NAME.mts (as written), NAME.mjs, NAME.cjs and NAME.txt per example without `needs`
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MARKER = /^<!-- example: ([a-z0-9-]+)(?:, needs: ([a-z0-9, -]+))? -->$/;

/** The Markdown files whose examples are run: README.md, then docs/*.md (not subdirectories). */
export function documentFiles(root = ROOT) {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join("docs", name));
  return ["README.md", ...docs];
}

/**
 * Every marked example: `{ name, file, needs, code, expectedPath }`. Throws when a ```ts block has no
 * marker (every TypeScript snippet a reader sees is run), when two examples share a name, or when a
 * marker is not followed by a ```ts block.
 */
export function readmeExamples(root = ROOT) {
  const examples = [];
  for (const file of documentFiles(root)) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    for (let line = 0; line < lines.length; line++) {
      const marker = MARKER.exec(lines[line]);
      if (lines[line] === "```ts" && !MARKER.test(lines[line - 1] ?? "")) {
        throw new Error(`${file}:${line + 1}: a \`\`\`ts block without an <!-- example: NAME --> marker on the line before`);
      }
      if (!marker) continue;
      if (lines[line + 1] !== "```ts") throw new Error(`${file}:${line + 1}: the marker of ${marker[1]} is not followed by a \`\`\`ts block`);
      const end = lines.indexOf("```", line + 2);
      if (end < 0) throw new Error(`${file}:${line + 2}: the block of ${marker[1]} is not closed`);
      const name = marker[1];
      if (examples.some((example) => example.name === name)) throw new Error(`${file}:${line + 1}: a second example named ${name}`);
      examples.push({
        name,
        file,
        needs: marker[2] ? marker[2].split(",").map((need) => need.trim()) : [],
        code: `${lines.slice(line + 2, end).join("\n")}\n`,
        expectedPath: join(root, "examples", "readme-output", `${name}.txt`),
      });
      line = end;
    }
  }
  return examples;
}

/** An example's TypeScript as plain JavaScript: ESM, or CommonJS (top-level await inside an async function). */
export async function transpile(code, format) {
  const { default: ts } = await import("typescript");
  const module = format === "cjs" ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext;
  const { outputText } = ts.transpileModule(code, {
    compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true, verbatimModuleSyntax: false },
    reportDiagnostics: false,
  });
  if (format !== "cjs") return outputText;
  return `(async () => {\n${outputText}\n})().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
}

async function write(directory) {
  mkdirSync(directory, { recursive: true });
  const written = [];
  for (const example of readmeExamples()) {
    if (example.needs.length > 0) continue;
    writeFileSync(join(directory, `${example.name}.mts`), example.code);
    writeFileSync(join(directory, `${example.name}.mjs`), await transpile(example.code, "esm"));
    writeFileSync(join(directory, `${example.name}.cjs`), await transpile(example.code, "cjs"));
    writeFileSync(join(directory, `${example.name}.txt`), readFileSync(example.expectedPath, "utf8"));
    written.push(example.name);
  }
  console.log(written.join(" "));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, directory] = process.argv.slice(2);
  if (command !== "write" || !directory) {
    console.error("usage: node scripts/readme-examples.mjs write <directory>");
    process.exit(2);
  }
  await write(resolve(directory));
}
