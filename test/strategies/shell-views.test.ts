/**
 * Reading a shell command for the files it shows and changes: the views superseded-result hiding
 * compares, and the commands it refuses to read as views.
 */
import { describe, expect, it } from "vitest";
import { readShellCommand } from "../../src/messages/shell-views.js";
import { normalizePath, shellPipelines } from "../../src/messages/shell-words.js";

const END = Number.POSITIVE_INFINITY;

describe("readShellCommand", () => {
  it("reads cat, nl, sed -n ranges and head as views, with cd and echo around them", () => {
    expect(readShellCommand("cat a.py b/c.py")).toEqual({ views: [{ path: "a.py", from: 1, to: END }, { path: "b/c.py", from: 1, to: END }], pureView: true, edits: [] });
    expect(readShellCommand("sed -n '5,9p;20,$p' a.py").views).toEqual([{ path: "a.py", from: 5, to: 9 }, { path: "a.py", from: 20, to: END }]);
    expect(readShellCommand("sed -n -e '7p' a.py").views).toEqual([{ path: "a.py", from: 7, to: 7 }]);
    expect(readShellCommand("head -5 a.py").views).toEqual([{ path: "a.py", from: 1, to: 5 }]);
    expect(readShellCommand("nl -b a a.py | head -n 40").views).toEqual([{ path: "a.py", from: 1, to: 40 }]);
    expect(readShellCommand('cd /testbed && echo "---" && cat -A ./src/../lib/a.py | sed -n "3,4p"').views).toEqual([{ path: "/testbed/lib/a.py", from: 3, to: 4 }]);
  });

  it("refuses what it cannot follow or what does more than show a file", () => {
    for (const command of [
      "sed -n '/def f/,/return/p' a.py",
      "cat a.py | grep foo",
      "nl -ba a.py | sed -n '1,5p' | head -2",
      "cat a.py > b.py",
      "cat $FILE",
      "tail -n 20 a.py",
      "cat <<'EOF' > a.py\nx = 1\nEOF",
      "sed -n '1,5p' a.py b.py",
      "python -c 'print(1)'",
      "cat",
    ]) {
      expect([command, readShellCommand(command).pureView]).toEqual([command, false]);
    }
  });

  it("reads the files a command changes, a leading cd moving them", () => {
    expect(readShellCommand("sed -i 's/a/b/' x.py && sed -n '1,3p' x.py")).toEqual({ views: [], pureView: false, edits: ["x.py"] });
    expect(readShellCommand("cd repo && cat <<'EOF' > t.py\nprint(1)\nEOF\npython t.py").edits).toEqual(["repo/t.py"]);
  });
});

describe("shellPipelines and normalizePath", () => {
  it("splits on the shell's separators and removes quotes", () => {
    expect(shellPipelines(`cd a && sed -n '1,2p' "b c.py" | head -n 1; echo \\"x # not a comment\n# a comment\nls`)).toEqual([
      [["cd", "a"]],
      [
        ["sed", "-n", "1,2p", "b c.py"],
        ["head", "-n", "1"],
      ],
      [["echo", '"x']],
      [["ls"]],
    ]);
    expect(shellPipelines("echo 'open")).toBeUndefined();
    expect(shellPipelines("sleep 1 & ls")).toBeUndefined();
  });

  it("makes paths comparable", () => {
    expect([normalizePath("./a//b/./c.py"), normalizePath("x/../y.py", "/r"), normalizePath("/a/../../b"), normalizePath("../b"), normalizePath("~/f", "/r")]).toEqual(["a/b/c.py", "/r/y.py", "/b", "../b", "~/f"]);
  });
});
