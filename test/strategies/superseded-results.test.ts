/**
 * toolResultHiding's superseded-result hiding on small histories: each recognised tool shape hides
 * the older result inside the kept groups with a note naming the superseding call, and the negative
 * cases (another file, a range not covered, a command with side effects, a superseding result that
 * is hidden or about to be) leave it whole.
 */
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  compactionMarkerOf,
  createTokenCounter,
  toolResultHiding,
  validateToolPairing,
  type ToolResultHidingOptions,
} from "../../src/index.js";
import { DEFAULT_HIDDEN_RESULT_PLACEHOLDER } from "../../src/extend/index.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { EVERY_RUN } from "../support/hiding.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });
/** A tool output long enough that hiding it saves tokens. */
const out = (n: number) => `line ${n} of the output `.repeat(30);

interface Call {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly output?: string;
}

/** One step per call, each its own assistant message (call `c<n>`, result `t<n>`), after a system and user message. */
function history(...calls: Call[]): BaseMessage[] {
  const messages: BaseMessage[] = [system("s"), user("u")];
  calls.forEach((call, position) => {
    const n = position + 1;
    messages.push(assistant(`a${n}`, "", [{ id: `c${n}`, name: call.name, args: call.args }]), toolResult(`t${n}`, `c${n}`, call.output ?? out(n), call.name));
  });
  return messages;
}

const bash = (command: string, output?: string): Call => ({ name: "bash", args: { command }, ...(output !== undefined ? { output } : {}) });
const editor = (args: Record<string, unknown>): Call => ({ name: "str_replace_editor", args });

/** Every group kept: only superseded results can be hidden. Without receipts, so that each note names the files. */
async function hide(messages: BaseMessage[], options: ToolResultHidingOptions = {}) {
  const result = await toolResultHiding({ ...EVERY_RUN, tokenCounter, keepRecentGroups: 100, receipts: false, ...options }).compact(messages);
  expect(validateToolPairing(result.messages)).toEqual([]);
  return result;
}

/** The hidden results' ids and their content. */
function hidden(messages: readonly BaseMessage[]): Record<string, string> {
  const notes: Record<string, string> = {};
  for (const message of messages) if (compactionMarkerOf(message)?.hidden) notes[message.id!] = String(message.content);
  return notes;
}

describe("superseded results: the recognised shapes", () => {
  it("str_replace_editor: a view of a file, then a later view of it, named with the call", async () => {
    const result = await hide(history(editor({ command: "view", path: "src/x.py" }), bash("ls"), editor({ command: "view", path: "./src/x.py" })));
    expect(hidden(result.messages)).toEqual({ t1: "[superseded: file src/x.py viewed again at call c3]" });
    expect(compactionMarkerOf(result.messages[3]!)).toMatchObject({ strategy: "toolResultHiding", hidden: true, supersededBy: "c3" });
    expect((result.messages[3] as ToolMessage).tool_call_id).toBe("c1");
  });

  it("with receipts, the note leaves the files to the receipt", async () => {
    const result = await hide(history(editor({ command: "view", path: "src/x.py" }), editor({ command: "view", path: "src/x.py" })), { receipts: true });
    expect(hidden(result.messages)).toEqual({ t1: "[superseded: file viewed again at call c2] (files: src/x.py)" });
  });

  it("str_replace_editor: a view_range covered by a later range or whole view, not by one that leaves lines out", async () => {
    const covered = await hide(history(editor({ command: "view", path: "a.py", view_range: [10, 20] }), editor({ command: "view", path: "a.py", view_range: [5, -1] })));
    const partly = await hide(history(editor({ command: "view", path: "a.py", view_range: [10, 20] }), editor({ command: "view", path: "a.py", view_range: [15, 40] })));
    expect(hidden(covered.messages)).toEqual({ t1: "[superseded: file a.py viewed again at call c2]" });
    expect(partly.status).toBe("noop");
  });

  it("str_replace_editor: create, str_replace and insert make every earlier view of the file stale", async () => {
    for (const command of ["create", "str_replace", "insert"]) {
      const result = await hide(history(editor({ command: "view", path: "a.py", view_range: [1, 9] }), editor({ command, path: "a.py", old_str: "x", new_str: "y" }), editor({ command: "view", path: "b.py" })));
      expect(hidden(result.messages)).toEqual({ t1: "[superseded: file a.py edited at call c2]" });
    }
  });

  it("shell: cat, nl -ba, sed -n ranges, head, with cd; a later view covering them supersedes them", async () => {
    const result = await hide(
      history(
        bash("cat src/a.py"),
        bash("sed -n '10,20p' src/b.py"),
        bash("head -n 30 src/c.py"),
        bash("nl -ba src/d.py | sed -n '100,140p'"),
        bash("cd src && nl -ba a.py"),
        bash("nl -ba src/b.py | sed -n '1,60p'"),
        bash("cat -n src/c.py"),
        bash("sed -n '90,150p' src/d.py"),
      ),
    );
    expect(hidden(result.messages)).toEqual({
      t1: "[superseded: file src/a.py viewed again at call c5]",
      t2: "[superseded: file src/b.py viewed again at call c6]",
      t3: "[superseded: file src/c.py viewed again at call c7]",
      t4: "[superseded: file src/d.py viewed again at call c8]",
    });
  });

  it("shell: sed -i, a redirection or tee make the file's earlier views stale", async () => {
    const result = await hide(
      history(bash("sed -n '1,50p' a.py"), bash("cat b.py"), bash("nl -ba c.py"), bash("sed -i 's/old/new/' a.py"), bash("echo x > b.py"), bash("grep -n def c.py | tee c.py")),
    );
    expect(hidden(result.messages)).toEqual({
      t1: "[superseded: file a.py edited at call c4]",
      t2: "[superseded: file b.py edited at call c5]",
      t3: "[superseded: file c.py edited at call c6]",
    });
  });

  it("shell: a test run, git diff and git status run again supersede the earlier run", async () => {
    const commands = ["pytest tests/test_a.py -x", "python -m pytest -q", "git diff", "git status", "cd /testbed && python reproduce.py"];
    const result = await hide(history(...commands.map((command) => bash(command)), ...commands.map((command) => bash(command))));
    expect(hidden(result.messages)).toEqual(Object.fromEntries(commands.map((_, position) => [`t${position + 1}`, `[superseded: command run again at call c${position + 6}]`])));
  });

  it("execute_bash and shell tools are read the same way", async () => {
    const result = await hide(history({ name: "execute_bash", args: { command: "cat a.py" } }, { name: "shell", args: { command: ["bash", "-lc", "cat a.py"] } }));
    expect(hidden(result.messages)).toEqual({ t1: "[superseded: file a.py viewed again at call c2]" });
  });

  it("read_file, write_file and edit_file by their path argument; Read's offset and limit as a range", async () => {
    const result = await hide(
      history(
        { name: "read_file", args: { path: "a.py" } },
        { name: "read_file", args: { path: "b.py" } },
        { name: "Read", args: { file_path: "c.py", offset: 10, limit: 20 } },
        { name: "read_file", args: { path: "a.py" } },
        { name: "edit_file", args: { path: "b.py", old: "x", new: "y" } },
        { name: "Read", args: { file_path: "c.py", offset: 1, limit: 40 } },
        { name: "write_file", args: { path: "d.py", content: "z" } },
      ),
    );
    expect(hidden(result.messages)).toEqual({
      t1: "[superseded: file a.py viewed again at call c4]",
      t2: "[superseded: file b.py edited at call c5]",
      t3: "[superseded: file c.py viewed again at call c6]",
    });
  });

  it("a tool it does not know: a repeated call with the same result is superseded, one with another result is not", async () => {
    const search = { name: "search_flights", args: { origin: "JFK", destination: "SEA" } };
    const book = { name: "book_reservation", args: { flight: "HAT001" } };
    const result = await hide(
      history(
        { ...search, output: out(1) },
        { ...book, output: `reservation HATHAU ${out(2)}` },
        { ...search, output: out(1) },
        { ...book, output: `reservation HATHAV ${out(2)}` },
      ),
    );
    expect(hidden(result.messages)).toEqual({ t1: "[superseded: same call made again at call c3]" });
  });

  it("a supersession hook reads other tools; undefined falls back to the built-in reading", async () => {
    const readCall = (call: { name: string; args: Record<string, unknown> }) =>
      call.name === "get_status" ? { rerun: true } : call.name === "open_doc" ? { views: [{ path: String(call.args["doc"]) }] } : undefined;
    const result = await hide(
      history({ name: "get_status", args: {} }, { name: "open_doc", args: { doc: "spec" } }, bash("cat a.py"), { name: "get_status", args: {} }, { name: "open_doc", args: { doc: "spec" } }, bash("cat a.py")),
      { supersession: { readCall } },
    );
    expect(hidden(result.messages)).toEqual({
      t1: "[superseded: same call made again at call c4]",
      t2: "[superseded: file spec viewed again at call c5]",
      t3: "[superseded: file a.py viewed again at call c6]",
    });
  });
});

describe("superseded results: what is left whole", () => {
  it("a view of another file, or of lines a later view leaves out", async () => {
    const result = await hide(history(bash("cat a.py"), bash("sed -n '10,20p' b.py"), bash("cat c/a.py"), bash("sed -n '12,30p' b.py"), bash("tail -n 20 a.py")));
    expect(result.status).toBe("noop");
  });

  it("a command with side effects is not a view: its result is not superseded by a later view", async () => {
    const result = await hide(
      history(bash("sed -i 's/a/b/' x.py && cat x.py"), bash("cat x.py > y.py"), bash("python gen.py"), bash("cat x.py"), bash("cat y.py"), bash("cat gen.py")),
    );
    expect(result.status).toBe("noop");
  });

  it("a view that a later call of the same assistant message repeats (they may run in any order)", async () => {
    const messages = [
      system("s"),
      user("u"),
      assistant("a1", "", [
        { id: "c1", args: { command: "cat a.py" } },
        { id: "c2", args: { command: "cat a.py" } },
      ]),
      toolResult("t1", "c1", out(1)),
      toolResult("t2", "c2", out(1)),
    ];
    expect((await hide(messages)).status).toBe("noop");
  });

  it("a result whose superseding result is hidden already", async () => {
    const messages = history(bash("cat a.py"), bash("ls"), bash("cat a.py"));
    const later = messages[7] as ToolMessage;
    const hiddenLater = new (later.constructor as typeof ToolMessage)({
      ...later,
      content: DEFAULT_HIDDEN_RESULT_PLACEHOLDER,
      tool_call_id: later.tool_call_id,
      response_metadata: { compaction: { strategy: "toolResultHiding", hidden: true } },
    });
    messages[7] = hiddenLater;
    expect((await hide(messages)).status).toBe("noop");
  });

  it("an older result whose superseding result the same firing hides gets the placeholder, not the note", async () => {
    // Two groups kept: t2 (superseded by t3, itself older than the kept groups) gets the placeholder.
    const result = await hide(history(bash("ls"), bash("cat a.py"), bash("cat a.py"), bash("ls -l"), bash("cat b.py")), { keepRecentGroups: 2 });
    expect(hidden(result.messages)).toEqual({ t1: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, t2: DEFAULT_HIDDEN_RESULT_PLACEHOLDER, t3: DEFAULT_HIDDEN_RESULT_PLACEHOLDER });
  });

  it("an older result superseded by a kept one gets the note", async () => {
    const result = await hide(history(bash("cat a.py"), bash("ls"), bash("cat b.py"), bash("cat a.py")), { keepRecentGroups: 2 });
    expect(hidden(result.messages)).toEqual({ t1: "[superseded: file a.py viewed again at call c4]", t2: DEFAULT_HIDDEN_RESULT_PLACEHOLDER });
  });

  it("with hideToolInputs, empties the superseded call's arguments and leaves the superseding call's", async () => {
    const result = await hide(history(bash("cat a.py"), bash("cat a.py")), { hideToolInputs: true });
    const calls = [2, 4].map((position) => (result.messages[position] as AIMessage).tool_calls![0]!.args);
    expect(calls).toEqual([{}, { command: "cat a.py" }]);
    expect(compactionMarkerOf(result.messages[2]!)?.hiddenToolInputs).toEqual(["c1"]);
  });

  it("with supersession off, only the kept groups decide", async () => {
    const result = await hide(history(bash("cat a.py"), bash("cat a.py")), { supersession: false });
    expect(result.status).toBe("noop");
    expect(toolResultHiding({ supersession: false }).supersession).toBe(false);
    expect(toolResultHiding().supersession).toBe(true);
  });
});
