// Dual ESM/CommonJS build with plain tsc.
// ESM is type-checked and emits declarations; the CommonJS pass only transpiles (noCheck), and its
// declarations are the ESM ones copied beside it: inside dist/cjs (marked "type": "commonjs") they
// are read as CommonJS declarations, which is what `require` consumers need. Their maps come along:
// at the same depth, their relative paths to src/ hold.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const tsc = join("node_modules", "typescript", "bin", "tsc");
rmSync("dist", { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.cjs.json"], { stdio: "inherit" });
mkdirSync("dist/cjs", { recursive: true });
writeFileSync("dist/cjs/package.json", JSON.stringify({ type: "commonjs" }) + "\n");

// CommonJS has no import.meta: the one use (createRequire(import.meta.url), to find optional packages
// synchronously) becomes the module's own file URL. Any other import.meta fails the build.
function rewriteImportMeta(directory) {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) rewriteImportMeta(path);
    else if (entry.endsWith(".js")) {
      const text = readFileSync(path, "utf8");
      if (!text.includes("import.meta")) continue;
      const rewritten = text.replaceAll("import.meta.url", 'require("node:url").pathToFileURL(__filename).href');
      if (rewritten.includes("import.meta")) throw new Error(`${path}: import.meta other than import.meta.url has no CommonJS equivalent here`);
      writeFileSync(path, rewritten);
    }
  }
}
rewriteImportMeta("dist/cjs");

function copyDeclarations(directory) {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) copyDeclarations(path);
    else if (entry.endsWith(".d.ts") || entry.endsWith(".d.ts.map")) {
      const target = join("dist/cjs", relative("dist/esm", path));
      cpSync(path, target);
    }
  }
}
copyDeclarations("dist/esm");
// The `langchain-compaction` bin (package.json "bin") is the ESM CLI; tsc keeps its shebang but not an
// executable mode, which a linked bin in a clone (npm link, npx from the project) needs.
chmodSync("dist/esm/cli.js", 0o755);
console.log("built dist/esm and dist/cjs");
