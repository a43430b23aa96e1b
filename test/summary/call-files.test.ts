/**
 * A receipt lists the files of a hidden result's call as the artifact index does: `callFiles` (the
 * files alone) gives what `filesOf(callArtifacts(...))` (the whole index) gives, for every call of the
 * recorded sessions with its result's index, and for calls that name more files than an index keeps.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { callArtifacts, callFiles, extractArtifacts, filesOf } from "../../src/messages/artifact-index.js";

describe("callFiles", () => {
  it("gives filesOf(callArtifacts(call, [result index])) for every call of the recorded sessions", () => {
    let calls = 0;
    let withFiles = 0;
    for (const session of loadTraceSessions(defaultTracesPath())) {
      const results = new Map(session.messages.filter((message): message is ToolMessage => message instanceof ToolMessage).map((message) => [message.tool_call_id, message]));
      for (const message of session.messages) {
        if (!(message instanceof AIMessage)) continue;
        for (const call of message.tool_calls ?? []) {
          const result = results.get(call.id ?? "");
          const previous = result ? [extractArtifacts([result])] : [];
          const expected = filesOf(callArtifacts(call, previous));
          expect(callFiles(call, previous)).toEqual(expected);
          calls++;
          if (expected.length > 0) withFiles++;
        }
      }
    }
    expect({ calls, withFiles }).toEqual({ calls: 2177, withFiles: 1843 });
  });

  it("gives filesOf(callArtifacts(call)) for 1,000 generated calls that touch the same files in different ways", () => {
    const paths = ["a.py", "src/b.ts", "docs/c.md", "d.json"];
    const programs = ["cat", "touch", "sed -i s/x/y/", "rm", "cp a.py", "mv d.json", "grep -n foo", "head", "mkdir", "echo hi >", "echo more >>"];
    let state = 3;
    const random = () => {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      return state / 2 ** 32;
    };
    const pick = <T,>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    let withSeveral = 0;
    for (let sample = 0; sample < 1_000; sample++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 5) }, () => `${pick(programs)} ${pick(paths)}`);
      const call =
        random() < 0.2
          ? { name: "str_replace_editor", args: { command: pick(["view", "create", "str_replace", "insert"]), path: pick(paths), extra: { file: pick(paths), ids: [1, "x"] } } }
          : { name: pick(["bash", "run_shell"]), args: { command: parts.join(pick([" && ", "; ", " | ", "\n"])), file_paths: [pick(paths), pick(paths)] } };
      const expected = filesOf(callArtifacts(call));
      if (expected.length > 1) withSeveral++;
      expect(callFiles(call), JSON.stringify(call)).toEqual(expected);
    }
    expect(withSeveral).toBeGreaterThan(500);
  });

  it("keeps the index's cap and order when a call names more files than an index lists, and merges an earlier index's files", () => {
    const paths = Array.from({ length: 130 }, (_, n) => `src/file_${n}.ts`);
    const call = { name: "bash", args: { command: `cat ${paths.join(" ")} && touch new.ts && sed -i s/a/b/ src/file_3.ts` } };
    const earlier = callArtifacts({ name: "write_file", args: { path: "docs/a.md" } });
    const expected = filesOf(callArtifacts(call, [earlier]));
    expect(expected.length).toBe(102);
    expect(callFiles(call, [earlier])).toEqual(expected);
  });
});
