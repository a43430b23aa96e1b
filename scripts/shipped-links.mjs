// The Markdown files the package ships (README.md, CHANGELOG.md, docs/) link only to files it ships,
// or by absolute URL: a relative link to examples/, bench/ or test/ is broken for whoever reads the
// installed package (or its npm page).
//
//   node scripts/shipped-links.mjs <directory>   # an unpacked tarball: its package/ directory
//
// Exits 1 and lists each broken link. test/readme.test.ts runs the same check on the files package.json's
// "files" selects; scripts/check-packed.sh on the tarball itself.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Relative link targets of a Markdown text (`[text](target)`, fragment dropped; none for `#…` or `scheme:`). */
export function relativeLinks(markdown) {
  const targets = [];
  for (const [, target] of markdown.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
    targets.push(target.split("#")[0]);
  }
  return targets;
}

/**
 * Every link of a shipped Markdown file to a path the package does not ship: `{ file, target }`.
 * `shipped` holds the package's files relative to its root (`docs/reference.md`); a link to a
 * directory is shipped when a file under it is.
 */
export function unshippedLinks(shipped, readText = (file) => readFileSync(join(ROOT, file), "utf8")) {
  const files = new Set(shipped);
  const has = (path) => files.has(path) || shipped.some((file) => file.startsWith(`${path.replace(/\/$/, "")}/`));
  const problems = [];
  for (const file of shipped.filter((name) => name.endsWith(".md"))) {
    for (const target of relativeLinks(readText(file))) {
      const path = normalize(join(dirname(file), target)).replace(/\/$/, "");
      if (path.startsWith("..") || !has(path)) problems.push({ file, target });
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [directory] = process.argv.slice(2);
  if (!directory) {
    console.error("usage: node scripts/shipped-links.mjs <directory>");
    process.exit(2);
  }
  const shipped = readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath ?? entry.path, entry.name)));
  const problems = unshippedLinks(shipped, (file) => readFileSync(join(directory, file), "utf8"));
  for (const { file, target } of problems) console.log(`${file}: links to ${target}, which the package does not ship`);
  if (problems.length > 0) process.exit(1);
  console.log(`the ${shipped.filter((name) => name.endsWith(".md")).length} Markdown files the package ships link only to what it ships`);
}
