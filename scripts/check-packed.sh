#!/usr/bin/env bash
# The package as a user gets it: pack it (npm pack, whose prepack builds dist/), install the tarball in
# a scratch project in a temporary directory with only what the README's Install section installs (its
# `npm install` lines, the package name replaced by the tarball), and run every README and docs
# example there, as ESM (.mjs) and as CommonJS (.cjs), comparing what each prints with
# examples/readme-output/<name>.txt line for line. Examples that need a service (`needs: postgres`)
# are left to their own test.
#
#   bash scripts/check-packed.sh               # pack, then check
#   bash scripts/check-packed.sh <tarball>     # check a tarball already packed
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

if [ $# -ge 1 ]; then
  tarball="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
  echo "== npm pack (prepack builds dist/)"
  npm pack --silent --pack-destination "$scratch" > "$scratch/pack.txt"
  tarball="$scratch/$(tail -n 1 "$scratch/pack.txt")"
fi
tar tzf "$tarball" > "$scratch/files.txt"
echo "== $(basename "$tarball"): $(wc -l < "$scratch/files.txt") files"
# What a user needs is there; what they do not is not.
for required in package/package.json package/README.md package/LICENSE package/CHANGELOG.md \
  package/dist/esm/index.js package/dist/esm/index.d.ts package/dist/cjs/index.js package/dist/cjs/index.d.ts \
  package/dist/cjs/package.json package/dist/esm/cli.js package/dist/esm/middleware/index.js package/dist/cjs/inspector/index.js; do
  grep -qx "$required" "$scratch/files.txt" || { echo "the tarball lacks $required"; exit 1; }
done
if grep -E '^package/(test|bench|examples|scripts|node_modules)/' "$scratch/files.txt"; then
  echo "the tarball holds development files"
  exit 1
fi

echo "== a scratch project with the README's Install lines"
app="$scratch/app"
mkdir -p "$app"
printf '{ "name": "packed-check", "version": "1.0.0", "private": true }\n' > "$app/package.json"
# The first sh block under "## Install": its `npm install` lines, as a user would type them.
install_lines="$(awk '/^## Install$/ { section = 1; next } /^## / { section = 0 } section && /^```sh$/ { block++; next } section && block == 1 && /^```$/ { exit } section && block == 1' README.md | sed 's/[[:space:]]*#.*//' | grep '^npm install ')"
[ -n "$install_lines" ] || { echo "no npm install line in README.md's Install section"; exit 1; }
while IFS= read -r line; do
  # The package itself comes from the tarball; every other package from the registry.
  command="${line//langchain-compaction/$tarball}"
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
