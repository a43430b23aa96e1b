/**
 * A shell command line split into simple commands and their words, quotes removed, as far as that
 * can be done without a shell: for telling which files a command shows. Anything this reading cannot
 * follow (a substitution, a redirection, a heredoc, a subshell, a variable) makes it give up.
 */

/** One simple command of a pipeline: its words, quotes removed. */
export type ShellStage = readonly string[];

/** A pipeline: its stages, joined by `|`. Pipelines are joined by `&&`, `||`, `;` or a newline. */
export type ShellPipeline = readonly ShellStage[];

/**
 * The pipelines of a command line, or `undefined` when it holds something this reading does not
 * follow: `$` outside single quotes, a backquote, `<` or `>`, `&` alone, parentheses or braces, or
 * an unterminated quote. A `#` that starts a word comments out the rest of its line.
 */
export function shellPipelines(command: string): ShellPipeline[] | undefined {
  const pipelines: ShellStage[][] = [];
  let stages: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endStage = () => {
    endWord();
    if (words.length > 0) stages.push(words);
    words = [];
  };
  const endPipeline = () => {
    endStage();
    if (stages.length > 0) pipelines.push(stages);
    stages = [];
  };
  for (let position = 0; position < command.length; position++) {
    const char = command[position]!;
    if (char === "'") {
      const close = command.indexOf("'", position + 1);
      if (close < 0) return undefined;
      word += command.slice(position + 1, close);
      inWord = true;
      position = close;
    } else if (char === '"') {
      let closed = false;
      for (position++; position < command.length; position++) {
        const inner = command[position]!;
        if (inner === '"') {
          closed = true;
          break;
        }
        if (inner === "$" || inner === "`") return undefined;
        if (inner === "\\" && position + 1 < command.length && '"\\$`\n'.includes(command[position + 1]!)) {
          position++;
          if (command[position] !== "\n") word += command[position];
          continue;
        }
        word += inner;
      }
      if (!closed) return undefined;
      inWord = true;
    } else if (char === "\\") {
      position++;
      if (position < command.length && command[position] !== "\n") {
        word += command[position];
        inWord = true;
      }
    } else if (char === " " || char === "\t" || char === "\r") {
      endWord();
    } else if (char === "\n" || char === ";") {
      endPipeline();
    } else if (char === "&") {
      if (command[position + 1] !== "&") return undefined;
      position++;
      endPipeline();
    } else if (char === "|") {
      if (command[position + 1] === "|") {
        position++;
        endPipeline();
      } else endStage();
    } else if (char === "#" && !inWord) {
      const end = command.indexOf("\n", position);
      position = end < 0 ? command.length : end - 1;
    } else if ("$`<>(){}".includes(char)) {
      return undefined;
    } else {
      word += char;
      inWord = true;
    }
  }
  endPipeline();
  return pipelines;
}

/**
 * A file path as written, made comparable: `cwd` (a directory a `cd` moved to) joined to a relative
 * path, `.` segments and repeated or trailing slashes dropped, `a/../` folded. A path that climbs
 * above its start keeps its `..`. Paths written differently (absolute and relative) stay different.
 */
export function normalizePath(path: string, cwd?: string): string {
  const joined = cwd !== undefined && !path.startsWith("/") && !path.startsWith("~") ? `${cwd}/${path}` : path;
  const absolute = joined.startsWith("/");
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else if (part !== ".." || !absolute) parts.push(part);
  }
  const normal = parts.join("/");
  return absolute ? `/${normal}` : normal === "" ? "." : normal;
}
