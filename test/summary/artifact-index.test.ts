import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { type ArtifactIndex } from "../../src/index.js";
import { EMPTY_ARTIFACT_INDEX, extractArtifacts, filesOf, renderArtifacts } from "../../src/extend/index.js";
import { filesOfCommand } from "../../src/messages/shell-files.js";
import { artifactIndexFitter } from "../../src/messages/artifact-render.js";
import { hasLoneSurrogate } from "../../src/text/code-points.js";
import { assistant, toolResult, user } from "../support/builders.js";

const bash = (id: string, command: string) => assistant(`a-${id}`, "", [{ id, name: "bash", args: { command } }]);

describe("filesOfCommand", () => {
  it("reads the files a command reads", () => {
    expect(filesOfCommand("cat src/app.py | head -n 20 && grep -n foo lib/util.ts")).toEqual([
      { path: "src/app.py", kind: "read" },
      { path: "lib/util.ts", kind: "read" },
    ]);
  });

  it("tells edits in place and redirections", () => {
    expect(filesOfCommand("sed -i 's/a\\/b/c/' django/db/models.py; echo hi > notes.txt; echo more >> log.md")).toEqual([
      { path: "django/db/models.py", kind: "modified" },
      { path: "notes.txt", kind: "created" },
      { path: "log.md", kind: "modified" },
    ]);
  });

  it("reads a program given by its path, a redirection glued to its target and a pytest node id with two parts", () => {
    expect(filesOfCommand("/bin/cat src/a.py 2>err.log; ./scripts/sed -i s/a/b/ x.py && pytest tests/t.py::test_a::case")).toEqual([
      { path: "err.log", kind: "created" },
      { path: "src/a.py", kind: "read" },
      { path: "x.py", kind: "modified" },
      { path: "tests/t.py", kind: "read" },
    ]);
  });

  it("keeps a heredoc's target but not the code inside it", () => {
    const command = "cat <<'EOF' > reproduce.py\nimport os.path\nprint(np.array([1]))\nEOF\npython reproduce.py";
    expect(filesOfCommand(command)).toEqual([
      { path: "reproduce.py", kind: "created" },
      { path: "reproduce.py", kind: "read" },
    ]);
  });

  it("takes sed scripts and grep patterns for scripts, quoted or not", () => {
    expect(filesOfCommand('sed -i "s/bool_option/members_option/g" sphinx/ext/autodoc.py && grep -n "__init__.py" setup.py')).toEqual([
      { path: "sphinx/ext/autodoc.py", kind: "modified" },
      { path: "setup.py", kind: "read" },
    ]);
    expect(filesOfCommand("sed -n -e 5p -e 9p notes.md")).toEqual([{ path: "notes.md", kind: "read" }]);
  });

  it("reads find's -name value as a pattern and a pytest node id as its file", () => {
    expect(filesOfCommand('find . -name "text.py"; python -m pytest tests/test_x.py::test_y -q')).toEqual([{ path: "tests/test_x.py", kind: "read" }]);
  });

  it("creates the destination of cp and mv", () => {
    expect(filesOfCommand("cp src/a.py backup/a.py")).toEqual([
      { path: "src/a.py", kind: "read" },
      { path: "backup/a.py", kind: "created" },
    ]);
  });

  it("ignores flags, numbers, /dev/null and sed scripts", () => {
    expect(filesOfCommand("ls -la 2>/dev/null; sed -n '10,20p' s/x/y/g; python -V 3.11")).toEqual([]);
  });
});

describe("extractArtifacts", () => {
  it("records files, commands, tools, identifiers, URLs and error lines", () => {
    const index = extractArtifacts([
      user("u", "Please fix https://example.com/issue/1 for user_42"),
      bash("c1", "cat src/app.py"),
      toolResult("t1", "c1", "def main():\n    raise ValueError('bad')\nTraceback (most recent call last)"),
      assistant("a2", "", [{ id: "c2", name: "get_reservation_details", args: { reservation_id: "JG7FMM" } }]),
      toolResult("t2", "c2", "{}", "get_reservation_details"),
      assistant("a3", "", [{ id: "c3", name: "str_replace_editor", args: { command: "create", path: "/repo/new.py", file_text: "x = 1" } }]),
      toolResult("t3", "c3", "File created", "str_replace_editor"),
    ]);
    expect(index).toEqual({
      filesCreated: ["/repo/new.py"],
      filesModified: [],
      filesRead: ["src/app.py"],
      commands: ["cat src/app.py"],
      tools: { bash: 1, get_reservation_details: 1, str_replace_editor: 1 },
      identifiers: ["JG7FMM"],
      urls: ["https://example.com/issue/1"],
      errors: ["raise ValueError('bad')", "Traceback (most recent call last)"],
    } satisfies ArtifactIndex);
  });

  it("merges earlier indexes first and moves a repeated entry to the newest place", () => {
    const earlier: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, filesRead: ["a.py", "b.py"], commands: ["cat a.py", "cat b.py"], tools: { bash: 2 } };
    const index = extractArtifacts([bash("c3", "cat a.py"), toolResult("t3", "c3")], [earlier]);
    expect(index.filesRead).toEqual(["b.py", "a.py"]);
    expect(index.commands).toEqual(["cat b.py", "cat a.py"]);
    expect(index.tools).toEqual({ bash: 3 });
  });

  it("reads the index stored in an earlier summary instead of its text", () => {
    const stored: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, filesModified: ["kept.py"] };
    const summary = new HumanMessage({ id: "s", content: "cat ignored.py", response_metadata: { compaction: { strategy: "fullSummary", summary: true, artifacts: stored } } });
    expect(extractArtifacts([summary]).filesModified).toEqual(["kept.py"]);
    expect(extractArtifacts([summary]).filesRead).toEqual([]);
  });

  it("keeps only the newest commands beyond the limit, files up to their own (100)", () => {
    const messages = Array.from({ length: 5 }, (_, n) => [bash(`c${n}`, `cat f${n}.py`), toolResult(`t${n}`, `c${n}`)]).flat();
    const index = extractArtifacts(messages, [], { commands: 2 });
    expect(index.commands).toEqual(["cat f3.py", "cat f4.py"]);
    expect(filesOf(index)).toEqual(["f0.py", "f1.py", "f2.py", "f3.py", "f4.py"]);
  });

  it("does not take diff lines that mention errors for error reports", () => {
    const index = extractArtifacts([bash("c", "git diff"), toolResult("t", "c", "+    raise ValidationError(error)\nFAILED tests/test_x.py::test_y")]);
    expect(index.errors).toEqual(["FAILED tests/test_x.py::test_y"]);
  });
});

describe("extractArtifacts cuts on code-point boundaries", () => {
  // Both prefixes are an odd number of code units, so pairs start at odd indexes and the 200-unit
  // limit falls inside one.
  const errorLine = "ValueError: x" + "😀".repeat(150);
  const command = "echo " + "🎉".repeat(150);

  it("cuts a long error line with emoji across the limit before the split pair", () => {
    const index = extractArtifacts([bash("c1", "make"), toolResult("t1", "c1", `building\n${errorLine}\ndone`)]);
    expect(index.errors).toEqual(["ValueError: x" + "😀".repeat(93)]);
    expect(index.errors[0]!.length).toBe(199);
    expect(hasLoneSurrogate(index.errors[0]!)).toBe(false);
  });

  it("cuts a long command line with emoji across the limit before the split pair", () => {
    const index = extractArtifacts([bash("c1", command)]);
    expect(index.commands).toEqual(["echo " + "🎉".repeat(97)]);
    expect(hasLoneSurrogate(index.commands[0]!)).toBe(false);
  });

  it("reads error lines nested in tool_result blocks and never throws on odd content", () => {
    const nested = new HumanMessage({
      content: [null, { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "FAILED tests/test_x.py" }] }] as never,
    });
    const objectContent = new HumanMessage({ content: { type: "text", text: "ValueError: bad" } as never });
    expect(extractArtifacts([nested, objectContent]).errors).toEqual(["FAILED tests/test_x.py", "ValueError: bad"]);
  });
});

describe("renderArtifacts", () => {
  it("renders the non-empty sections in an artifact_index block", () => {
    const index: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, filesModified: ["a.py"], commands: ["pytest"], tools: { bash: 2 }, errors: ["E  boom"] };
    expect(renderArtifacts(index)).toBe(
      "<artifact_index>\nfiles modified: a.py\ntools used: bash (2)\ncommands run:\n- pytest\nerrors seen:\n- E  boom\n</artifact_index>",
    );
  });

  it("renders nothing for an empty index", () => {
    expect(renderArtifacts(EMPTY_ARTIFACT_INDEX)).toBe("");
  });

  it("within maxCharacters keeps the newest and the most used files in turn, in their stored order, and counts the rest", () => {
    const index: ArtifactIndex = {
      ...EMPTY_ARTIFACT_INDEX,
      filesRead: Array.from({ length: 100 }, (_, n) => `f${n}.py`),
      fileUses: { "f3.py": 5, "f7.py": 2 },
      tools: { read: 90, grep: 10 },
    };
    // Four files each: the newest (f99, f98) and the most used (f3, f7), one of each in turn.
    const four = "<artifact_index>\nfiles read: f3.py, f7.py, f98.py, f99.py, … and 96 more files\ntools used: read (90), grep (10)\n</artifact_index>";
    expect(renderArtifacts(index, { maxCharacters: four.length })).toBe(four);
    expect(renderArtifacts(index, { maxCharacters: four.length - 1 })).toBe(
      "<artifact_index>\nfiles read: f3.py, f98.py, f99.py, … and 97 more files\ntools used: read (90), grep (10)\n</artifact_index>",
    );
    expect(renderArtifacts(index, { maxCharacters: 10 })).toBe("");
  });

  it("within maxCharacters shows the newest commands, errors and identifiers, with their count", () => {
    const long = (kind: string) => [1, 2, 3].map((n) => `${kind} ${n} ${"x".repeat(40)}`);
    const index: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, commands: long("command"), errors: long("error"), identifiers: long("id") };
    const [c, e, i] = [index.commands, index.errors, index.identifiers];
    const two = `<artifact_index>\nidentifiers: ${i[1]}, ${i[2]}, … and 1 more identifiers\ncommands run (2 of 3):\n- ${c[1]}\n- ${c[2]}\nerrors seen (2 of 3):\n- ${e[1]}\n- ${e[2]}\n</artifact_index>`;
    expect(renderArtifacts(index, { maxCharacters: two.length })).toBe(two);
  });
});

describe("artifactIndexFitter with text beside the index", () => {
  it("leaves out the entries the text names on their own, and does not count them in the rest", () => {
    const index: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, filesRead: ["a.py", "src/b.py", "c.py", "d.py"], tools: { read: 4 } };
    // "a.py" stands inside "data.py" only: not named. "read" is a tool: always listed.
    const fit = artifactIndexFitter(index, 15, "We read data.py, then src/b.py and c.py.");
    expect(fit()).toBe("<artifact_index>\nfiles read: a.py, d.py\ntools used: read (4)\n</artifact_index>");
    // Cut to one entry: the newest not named, and a count of the others not named.
    const long = (name: string) => `src/a/long/directory/name/${name}.py`;
    const index2: ArtifactIndex = { ...EMPTY_ARTIFACT_INDEX, filesRead: [long("x"), long("y"), long("z"), long("w")] };
    const one = `<artifact_index>\nfiles read: ${long("w")}, … and 2 more files\n</artifact_index>`;
    expect(artifactIndexFitter(index2, 15, `We read ${long("z")}.`)(one.length)).toBe(one);
  });
});

describe("fileUses", () => {
  it("counts the files touched more than once, merged indexes summed", () => {
    const read = (id: string, path: string) => [assistant(`a${id}`, "", [{ id, name: "read_file", args: { path } }]), toolResult(`t${id}`, id, "x", "read_file")];
    const first = extractArtifacts([...read("1", "a.py"), ...read("2", "a.py"), ...read("3", "b.py")]);
    expect(first.fileUses).toEqual({ "a.py": 2 });
    expect(extractArtifacts(read("4", "b.py"), [first]).fileUses).toEqual({ "a.py": 2, "b.py": 2 });
    expect("fileUses" in extractArtifacts(read("5", "c.py"))).toBe(false);
  });
});

describe("the file cap: an index keeps at most limits.files files per list, whatever its age", () => {
  const read = (n: number, path = `src/f${n}.ts`) => [assistant(`a${n}`, "", [{ id: `c${n}`, name: "read_file", args: { path } }]), toolResult(`t${n}`, `c${n}`, "x", "read_file")];
  const reads = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => read(from + k)).flat();

  it("keeps the newest and the most used 100, in their stored order, and counts the files it left out", () => {
    // src/hot.ts is read five times first, then 150 other files once each.
    const messages = [...[0, 1, 2, 3, 4].flatMap((n) => read(1000 + n, "src/hot.ts")), ...reads(0, 150)];
    const index = extractArtifacts(messages);
    expect(index.filesRead).toHaveLength(100);
    expect(index.filesRead[0]).toBe("src/hot.ts");
    expect(index.filesRead.at(-1)).toBe("src/f149.ts");
    expect(index.filesLeftOut).toEqual({ read: 51 });
    expect(index.fileUses).toEqual({ "src/hot.ts": 5 });
    expect("filesLeftOut" in extractArtifacts(reads(0, 100))).toBe(false);
  });

  it("a chain of summaries stays within the cap: each merge adds what it left out to the count", () => {
    const first = extractArtifacts(reads(0, 150));
    const second = extractArtifacts(reads(150, 300), [first]);
    const third = extractArtifacts(reads(300, 450), [second]);
    expect(third.filesRead).toEqual(Array.from({ length: 100 }, (_, k) => `src/f${350 + k}.ts`));
    expect(third.filesLeftOut).toEqual({ read: 350 });
    expect(JSON.stringify(third).length).toBeLessThanOrEqual(JSON.stringify(first).length + 100);
  });

  it("honours limits.files for every file list", () => {
    const messages = [bash("e1", "echo a > new1.txt; echo b > new2.txt; sed -i s/a/b/ m1.py m2.py; cat r1.py r2.py"), toolResult("te1", "e1")];
    const index = extractArtifacts(messages, [], { files: 1 });
    expect([index.filesCreated, index.filesModified, index.filesRead]).toEqual([["new2.txt"], ["m2.py"], ["r2.py"]]);
    expect(index.filesLeftOut).toEqual({ created: 1, modified: 1, read: 1 });
  });

  it("the rendered index counts the files it left out with the ones it does not show", () => {
    const index = extractArtifacts(reads(0, 103));
    expect(renderArtifacts(index)).toBe(`<artifact_index>\nfiles read: ${index.filesRead.join(", ")}, … and 3 more files\ntools used: read_file (103)\n</artifact_index>`);
    expect(renderArtifacts(index, { maxCharacters: 110 })).toBe("<artifact_index>\nfiles read: src/f102.ts, … and 102 more files\ntools used: read_file (103)\n</artifact_index>");
  });
});
