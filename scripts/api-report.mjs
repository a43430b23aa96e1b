// The package's public API, entry point by entry point: every exported name with its kind and
// signature, read with the TypeScript compiler from the sources each package.json export builds
// (dist/esm/X.d.ts is built from src/X.ts). Checked in as api/<entry>.api.md, so that a review shows
// every change to the public API; test/api-report.test.ts fails when a report is stale.
//
//   node scripts/api-report.mjs           # write api/*.api.md
//   node scripts/api-report.mjs --check   # exit 1 and print the difference when a report is stale
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const UPDATE_COMMAND = "node scripts/api-report.mjs";

/** Each entry point of package.json "exports": its name, its report's file, and the source it is built from. */
export function entryPoints(root = ROOT) {
  const { name, exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return Object.entries(exports)
    .filter(([, target]) => typeof target === "object")
    .map(([subpath, target]) => {
      const types = target.import.types; // ./dist/esm/X.d.ts
      const source = types.replace(/^\.\/dist\/esm\//, "src/").replace(/\.d\.ts$/, ".ts");
      const entry = subpath === "." ? name : `${name}/${subpath.slice(2)}`;
      const report = `${subpath === "." ? "index" : subpath.slice(2)}.api.md`;
      return { entry, report, source: join(root, source) };
    });
}

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;
const SHORT = ts.TypeFormatFlags.None;

/**
 * A type's text without the compiler's `import("/absolute/path").` qualifiers and the numbers it gives
 * unique symbols (`__@ERROR_MARKER@776`), which move with any change elsewhere: the same on every machine.
 */
const unqualified = (text) => text.replace(/import\("[^"]*"(?:, \{ with: \{ "resolution-mode": "\w+" \} \})?\)\./g, "").replace(/(__@\w+)@\d+/g, "$1");

/** One line per exported name: `kind name: signature`, members indented below interfaces and classes. */
function describeSymbol(checker, exported) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const name = exported.getName();
  const declaration = symbol.declarations?.[0];
  const flags = symbol.flags;
  const lines = [];
  const typeOf = (node) => checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, node), undefined, SHORT);
  if (flags & ts.SymbolFlags.Class) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    const heritage = declaration.heritageClauses?.map((clause) => clause.getText()).join(" ");
    lines.push(`class ${name}${heritage ? ` ${heritage}` : ""}`);
    for (const signature of type.getConstructSignatures()) lines.push(`  constructor${checker.signatureToString(signature, undefined, SHORT)}`);
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    for (const member of checker.getPropertiesOfType(instance)) lines.push(`  ${memberLine(checker, member, declaration)}`);
    for (const member of checker.getPropertiesOfType(type)) if (member.getName() !== "prototype") lines.push(`  static ${memberLine(checker, member, declaration)}`);
  } else if (flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    for (const signature of type.getCallSignatures()) lines.push(`function ${name}${checker.signatureToString(signature, undefined, SHORT)}`);
  } else if (flags & ts.SymbolFlags.Variable) {
    lines.push(`const ${name}: ${typeOf(declaration)}`);
  } else if (flags & ts.SymbolFlags.Interface) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const bases = type.getBaseTypes?.() ?? [];
    lines.push(`interface ${name}${bases.length ? ` extends ${bases.map((base) => checker.typeToString(base, undefined, SHORT)).join(", ")}` : ""}`);
    for (const member of checker.getPropertiesOfType(type)) lines.push(`  ${memberLine(checker, member, declaration)}`);
  } else if (flags & ts.SymbolFlags.TypeAlias) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    lines.push(`type ${name} = ${checker.typeToString(type, declaration, FLAGS | ts.TypeFormatFlags.InTypeAlias)}`);
  } else if (flags & ts.SymbolFlags.Enum) {
    lines.push(`enum ${name}`);
  } else {
    lines.push(`${ts.SymbolFlags[flags] ?? "symbol"} ${name}`);
  }
  // Private and #private members are not part of the API.
  return lines.filter((line) => !/^\s+(static )?(#|__@)/.test(line)).map(unqualified);
}

function memberLine(checker, member, location) {
  const declaration = member.declarations?.[0];
  const modifiers = declaration ? ts.getCombinedModifierFlags(declaration) : 0;
  if (modifiers & ts.ModifierFlags.Private) return `#private ${member.getName()}`;
  const optional = member.flags & ts.SymbolFlags.Optional ? "?" : "";
  const readonly = modifiers & ts.ModifierFlags.Readonly ? "readonly " : "";
  const isProtected = modifiers & ts.ModifierFlags.Protected ? "protected " : "";
  const type = checker.typeToString(checker.getTypeOfSymbolAtLocation(member, declaration ?? location), undefined, SHORT);
  return `${isProtected}${readonly}${member.getName()}${optional}: ${type}`;
}

/** Whether an export is a value at run time (a function, class, const or enum), not only a type. */
function isRuntime(checker, exported) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  if (exported.flags & ts.SymbolFlags.Alias) {
    // `export { type X }` and `export type { X }` are types even when X is a value.
    const declaration = exported.declarations?.[0];
    if (declaration && (declaration.isTypeOnly || declaration.parent?.parent?.isTypeOnly)) return false;
  }
  return (symbol.flags & ts.SymbolFlags.Value) !== 0;
}

/** The reports, by file name: `{ [file]: text }`, and the runtime names of each entry point. */
export function apiReports(root = ROOT) {
  const entries = entryPoints(root);
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const program = ts.createProgram(
    entries.map(({ source }) => source),
    { ...config.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const reports = {};
  const runtime = {};
  for (const { entry, report, source } of entries) {
    const file = program.getSourceFile(source);
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(file)).sort((a, b) => a.getName().localeCompare(b.getName(), "en"));
    const values = exports.filter((symbol) => isRuntime(checker, symbol));
    runtime[entry] = values.map((symbol) => symbol.getName());
    const body = exports.flatMap((symbol) => [`// ${isRuntime(checker, symbol) ? "runtime" : "type"}`, ...describeSymbol(checker, symbol), ""]);
    reports[report] = [
      `# API report: \`${entry}\``,
      "",
      `Generated by \`${UPDATE_COMMAND}\` from \`${source.slice(root.length + 1)}\`; do not edit.`,
      `${values.length} runtime names, ${exports.length - values.length} type names.`,
      "",
      "```ts",
      ...body,
      "```",
      "",
    ].join("\n");
  }
  return { reports, runtime };
}

/** Line differences between two texts, as `-`/`+` lines (a plain LCS diff; reports are small). */
export function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const lengths = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lengths[i][j + 1] >= lengths[i + 1][j])) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out;
}

/** What differs between the reports on disk and the API now: one entry per stale or missing file. */
export function staleReports(root = ROOT) {
  const { reports } = apiReports(root);
  const directory = join(root, "api");
  const stale = [];
  for (const [file, text] of Object.entries(reports)) {
    const path = join(directory, file);
    const current = existsSync(path) ? readFileSync(path, "utf8") : "";
    if (current !== text) stale.push({ file: `api/${file}`, diff: lineDiff(current, text) });
  }
  if (existsSync(directory)) for (const file of readdirSync(directory)) if (!(file in reports)) stale.push({ file: `api/${file}`, diff: ["- (an entry point that no longer exists)"] });
  return stale;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const stale = staleReports();
    for (const { file, diff } of stale) console.log(`${file} is stale:\n${diff.join("\n")}\n`);
    if (stale.length > 0) console.log(`The public API changed. If that is intended, run \`${UPDATE_COMMAND}\` and commit api/.`);
    process.exitCode = stale.length > 0 ? 1 : 0;
  } else {
    const { reports, runtime } = apiReports();
    rmSync(join(ROOT, "api"), { recursive: true, force: true });
    mkdirSync(join(ROOT, "api"), { recursive: true });
    for (const [file, text] of Object.entries(reports)) writeFileSync(join(ROOT, "api", file), text);
    for (const [entry, names] of Object.entries(runtime)) console.log(`${entry}: ${names.length} runtime names`);
  }
}
