#!/usr/bin/env bash
# The package as a user gets it, following the README's Install section word for word: its clone line
# (`git clone <url> ... && npm ci && npm pack`, <url> being this clone), then, in a scratch project
# that `npm init -y` made, its `npm install` lines (the tarball's path put in). There it checks that
# the Markdown files the tarball ships link only to what it ships, that every README and docs example
# type-checks under `tsc --strict` as written, that the README's first example runs with tsx as the
# README says (an .mts file in the CommonJS project, a .ts file once it is "type": "module") and its
# `require` line runs, and runs every example as ESM (.mjs) and as CommonJS (.cjs), comparing what
# each prints with examples/readme-output/<name>.txt line for line. Examples that need a service
# (`needs: postgres`) are left to their own test.
#
#   bash scripts/check-packed.sh               # the README's clone line (a clone of this repository's HEAD), then check
#   bash scripts/check-packed.sh <tarball>     # check a tarball already packed (the clone line is not run)
#
# Exits non-zero on the first difference, showing it. The scratch project is deleted afterwards
# (LANGCHAIN_COMPACTION_KEEP_SCRATCH=1 keeps it and prints where it is).
set -euo pipefail
cd "$(dirname "$0")/.."
project="$PWD"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/langchain-compaction-packed-XXXXXX")"
if [ "${LANGCHAIN_COMPACTION_KEEP_SCRATCH:-}" = 1 ]; then
  trap 'echo "scratch project kept: $scratch"' EXIT
else
  trap 'rm -rf "$scratch"' EXIT
fi

# The README's Install section: its first sh block is the clone line, its second the `npm install` lines.
install_block() {
  awk -v want="$1" '/^## Install$/ { section = 1; next } /^## / { section = 0 } section && /^```sh$/ { block++; next } section && block == want && /^```$/ { exit } section && block == want' README.md
}
clone_line="$(install_block 1)"
case "$clone_line" in
  "git clone <url> langchain-compaction && cd langchain-compaction && npm ci && npm pack") ;;
  *) echo "README.md's Install section does not start with the clone line this script runs: $clone_line"; exit 1 ;;
esac
install_lines="$(install_block 2 | sed 's/[[:space:]]*#.*//' | grep '^npm install ' || true)"
[ -n "$install_lines" ] || { echo "no npm install line in README.md's Install section"; exit 1; }
# The tarball the README names (its path is the user's): the one npm pack writes for this version.
readme_tarball="$(grep -o '[^[:space:]]*\.tgz' <<< "$install_lines" | head -n 1)"
expected_name="langchain-compaction-$(node -p 'require("./package.json").version').tgz"
[ "$(basename "$readme_tarball")" = "$expected_name" ] || { echo "README.md installs $readme_tarball; npm pack writes $expected_name"; exit 1; }

if [ $# -ge 1 ]; then
  tarball="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
  echo "\$ ${clone_line}   (<url>: $project)"
  (cd "$scratch" && eval "${clone_line/<url>/$(printf '%q' "$project")}") > "$scratch/clone.log" 2>&1 || { tail -n 40 "$scratch/clone.log"; exit 1; }
  tarball="$scratch/langchain-compaction/$expected_name"
  [ -f "$tarball" ] || { echo "the clone line wrote no $expected_name"; exit 1; }
fi
tar tzf "$tarball" > "$scratch/files.txt"
echo "== $(basename "$tarball"): $(wc -l < "$scratch/files.txt") files"
# What a user needs is there; what they do not is not.
for required in package/package.json package/README.md package/LICENSE package/CHANGELOG.md \
  package/dist/esm/index.js package/dist/esm/index.d.ts package/dist/cjs/index.js package/dist/cjs/index.d.ts \
  package/dist/cjs/package.json package/dist/esm/cli.js package/dist/esm/middleware/index.js package/dist/cjs/inspector/index.js \
  package/dist/esm/extend/index.js package/dist/cjs/extend/index.js \
  package/middleware/package.json package/inspector/package.json package/sqlite/package.json package/extend/package.json; do
  grep -qx "$required" "$scratch/files.txt" || { echo "the tarball lacks $required"; exit 1; }
done
if grep -E '^package/(test|bench|examples|scripts|node_modules)/' "$scratch/files.txt"; then
  echo "the tarball holds development files"
  exit 1
fi

echo "== the Markdown files it ships link only to what it ships"
mkdir -p "$scratch/unpacked"
tar xzf "$tarball" -C "$scratch/unpacked"
node scripts/shipped-links.mjs "$scratch/unpacked/package"

echo "== a scratch project (npm init -y) with the README's Install lines"
app="$scratch/app"
mkdir -p "$app"
(cd "$app" && npm init -y > /dev/null)
while IFS= read -r line; do
  # The package itself comes from the tarball; every other package from the registry.
  command="${line//"$readme_tarball"/$tarball}"
  echo "\$ ${line}"
  (cd "$app" && eval "$command --no-audit --no-fund --prefer-offline --loglevel=error") > "$scratch/install.log" 2>&1 || {
    cat "$scratch/install.log"
    exit 1
  }
done <<< "$install_lines"
(cd "$app" && node -e '
  const names = ["@langchain/core", "@langchain/langgraph", "langchain", "langchain-compaction"];
  console.log(names.map((name) => name + " " + require(name + "/package.json").version).join(", "));
')

# The bin, as `npx langchain-compaction` finds it in a project.
usage="$(cd "$app" && ./node_modules/.bin/langchain-compaction inspect --help | head -n 1)"
[ "$usage" = "Usage: langchain-compaction inspect <source> [options]" ] || { echo "the installed bin printed: $usage"; exit 1; }
echo "the bin runs: $usage"

echo "== the README's and docs' examples, from the installed package (installed after ${SECONDS} s)"
examples="$(node scripts/readme-examples.mjs write "$app")"

echo "== tsc --strict on every example as written (TypeScript $(node node_modules/typescript/bin/tsc --version | cut -d' ' -f2), module nodenext)"
# The options of a user's strict ESM project; skipLibCheck as \`tsc --init\` sets it. @types/node from
# this clone (the scratch project installs only what the README does).
(cd "$app" && node "$project/node_modules/typescript/bin/tsc" --strict --noEmit --skipLibCheck --target es2022 \
  --module nodenext --moduleResolution nodenext --typeRoots "$project/node_modules/@types" --types node \
  $(for name in $examples; do printf '%s.mts ' "$name"; done)) || { echo "an example does not type-check"; exit 1; }
echo "every example type-checks"

echo "== the README's way to run an example: tsx (this clone's), then its CommonJS require line"
first="${examples%% *}"
tsx=("$project/node_modules/.bin/tsx")
(cd "$app" && "${tsx[@]}" "$first.mts" > "$first.tsx-mts.out" && cmp "$first.tsx-mts.out" "$first.txt")
echo "ok   tsx $first.mts in the CommonJS project npm init -y made"
(cd "$app" && npm pkg set type=module && cp "$first.mts" "$first.ts" && "${tsx[@]}" "$first.ts" > "$first.tsx-ts.out" && cmp "$first.tsx-ts.out" "$first.txt" && npm pkg set type=commonjs)
echo "ok   tsx $first.ts once the project is \"type\": \"module\""
awk '/^### Running the examples$/ { section = 1; next } /^##/ { section = 0 } section && /^```js$/ { block = 1; next } block && /^```$/ { exit } block' README.md > "$app/require-line.cjs"
grep -q 'require("langchain-compaction")' "$app/require-line.cjs" || { echo "no require line in README.md's Running the examples"; exit 1; }
(cd "$app" && node require-line.cjs)
echo "ok   the require line: $(head -n 1 "$app/require-line.cjs")"
# One example run: its exit code and output in files, compared below.
run_example() {
  (cd "$app" && node "$1.$2" > "$1.$2.out" 2> "$1.$2.err"; echo $? > "$1.$2.code")
}
failed=0
for name in $examples; do
  # ESM and CommonJS side by side (two processes; the machine has two cores).
  run_example "$name" mjs &
  run_example "$name" cjs &
  wait
  for format in mjs cjs; do
    if [ "$(cat "$app/$name.$format.code")" = 0 ] && cmp -s "$app/$name.$format.out" "$app/$name.txt"; then
      echo "ok   $name ($format)"
    else
      echo "FAIL $name ($format): exit code $(cat "$app/$name.$format.code")"
      diff "$app/$name.txt" "$app/$name.$format.out" | head -n 20 || true
      head -n 20 "$app/$name.$format.err"
      failed=$((failed + 1))
    fi
  done
done
if [ "$failed" -gt 0 ]; then
  echo "$failed example runs failed"
  exit 1
fi
echo "every example printed what examples/readme-output/ says, as ESM and as CommonJS (${SECONDS} s)"
