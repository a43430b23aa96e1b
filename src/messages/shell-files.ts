/**
 * Which files a shell command touches, read from the command line alone (no shell is run): for the
 * artifact index kept beside every summary.
 */

const FILE_EXTENSIONS = new Set(
  (
    "py pyi pyx pxd ipynb js mjs cjs ts tsx jsx json jsonl md rst txt cfg ini toml yaml yml lock c h cc cpp hpp rs go java kt rb php sh bash zsh " +
    "html htm css scss xml csv tsv sql log out patch diff in env png jpg jpeg gif svg pdf gz zip tar"
  ).split(" "),
);
const TOKEN_CHARS = /^(?:~\/|\.{1,2}\/|\/)?[\w.@+-]+(?:\/[\w.@+-]+)*\/?$/;

/** Whether a shell word names a file or directory (not a flag, a number, a URL or a sed script). */
function looksLikePath(word: string): boolean {
  if (word.length < 2 || word.length > 240 || word.startsWith("-")) return false;
  if (!TOKEN_CHARS.test(word)) return false;
  if (word === "/dev/null" || /^\/(?:dev|proc)\//.test(word)) return false;
  if (word.includes("/")) {
    // A sed or tr script (s/a/b/g) is not a path.
    if (/^[sy]\/.*\/.*\/[gipI0-9]*$/.test(word)) return false;
    return /[A-Za-z]/.test(word);
  }
  const dot = word.lastIndexOf(".");
  return dot > 0 && FILE_EXTENSIONS.has(word.slice(dot + 1).toLowerCase());
}

/** Stands for a quoted string that is code or a pattern, not a file name. */
const QUOTED = "\u0000quoted";

/**
 * Drops heredoc bodies, and replaces single-quoted strings and double-quoted strings with spaces in
 * them (code, sed scripts, search patterns) by a placeholder that still counts as an argument.
 */
function shellSkeleton(command: string): string {
  // Each replacement only where what it replaces can be (most commands quote nothing).
  let skeleton = command;
  if (skeleton.includes("<<")) skeleton = skeleton.replace(/<<-?\s*(['"]?)(\w+)\1([^\n]*)\n[\s\S]*?(?:\n\2(?=\s|$)|$)/g, (_match, _quote, _tag, rest: string) => ` ${rest} `);
  if (skeleton.includes("'")) skeleton = skeleton.replace(/'[^']*'/g, ` ${QUOTED} `);
  if (skeleton.includes('"')) skeleton = skeleton.replace(/"([^"]*)"/g, (_match, inner: string) => (/\s/.test(inner) || inner === "" ? ` ${QUOTED} ` : ` ${inner} `));
  return skeleton;
}

/** Programs whose first operand is a script or pattern (unless given with -e/-f), not a file. */
const SCRIPT_FIRST = new Set(["sed", "awk", "gawk", "perl", "grep", "egrep", "fgrep", "rg", "ag"]);
/** Options whose value is a script, pattern or name, not a file. */
const VALUE_OPTIONS = new Set(["-e", "--expression", "--regexp", "-name", "-iname", "-path", "-ipath", "-regex"]);

/** A file a command or tool touches, and how. */
export interface FileTouch {
  readonly path: string;
  readonly kind: "created" | "modified" | "read";
}

/** The files a shell command touches, with how. */
export function filesOfCommand(command: string): FileTouch[] {
  const touches: FileTouch[] = [];
  const skeleton = shellSkeleton(command);
  // Simple commands, split on the shell's separators.
  for (const part of skeleton.split(/&&|\|\||[;|\n]/)) {
    const words = part.split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const program = words[0]!.slice(words[0]!.lastIndexOf("/") + 1);
    const editsInPlace = (program === "sed" && words.some((word) => word.startsWith("-i"))) || program === "patch" || program === "rm";
    const scriptGiven = words.some((word) => word === "-e" || word === "-f" || word === "--expression" || word === "--regexp");
    let operands = 0;
    const operandPaths: FileTouch[] = [];
    for (let position = 1; position < words.length; position++) {
      const word = words[position]!;
      const redirect = word.includes(">") ? /^(\d?>>?|&>)(.*)$/.exec(word) : null;
      if (redirect) {
        const target = redirect[2] || words[++position] || "";
        if (looksLikePath(target)) touches.push({ path: target, kind: redirect[1]!.endsWith(">>") ? "modified" : "created" });
        continue;
      }
      if (word.startsWith("<")) continue;
      if (VALUE_OPTIONS.has(word)) {
        position++;
        continue;
      }
      if (word.startsWith("-")) continue;
      operands++;
      // sed's script, grep's pattern: the first operand, unless -e/-f gave it.
      if (operands === 1 && SCRIPT_FIRST.has(program) && !scriptGiven) continue;
      // A pytest node id names its file before "::".
      const nodeId = word.indexOf("::");
      const path = nodeId === -1 ? word : word.slice(0, nodeId);
      if (word === QUOTED || !looksLikePath(path)) continue;
      const kind = program === "touch" || program === "mkdir" || program === "tee" ? "created" : editsInPlace ? "modified" : "read";
      operandPaths.push({ path, kind });
    }
    // cp and mv create their last operand.
    if ((program === "cp" || program === "mv") && operandPaths.length >= 2) operandPaths[operandPaths.length - 1] = { ...operandPaths.at(-1)!, kind: "created" };
    if (program === "cat" && words.length === 1) continue;
    touches.push(...operandPaths);
  }
  return touches;
}
