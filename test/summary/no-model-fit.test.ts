import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { autoCompaction, compactionMarkerOf, createTokenCounter } from "../../src/index.js";
import {
  COMPACTION_METADATA_KEY,
  EMPTY_ARTIFACT_INDEX,
  SUMMARY_MESSAGE_PREFIX,
  messageText,
  noModelSnapshot,
} from "../../src/extend/index.js";
import { DEFAULT_AUTO_SUMMARY_MAX_TOKENS } from "../../src/policies/auto-compaction-options.js";
import { tagContent } from "../../src/summary/summary-text.js";
import { assistant, toolResult, user } from "../support/builders.js";

/** An earlier no-model summary message holding `knowledge` items, cut at the token cap when `cut` is set, its index after it. */
function earlierSummary(knowledge: readonly string[], cut: boolean, cutTail = ""): HumanMessage {
  const items = knowledge.map((item) => `        - ${item}`).join("\n");
  const snapshot = `<state_snapshot>\n    <overall_goal>\n        fix the parser\n    </overall_goal>\n    <key_knowledge>\n${items}${cut ? cutTail : "\n    </key_knowledge>\n</state_snapshot>"}`;
  return new HumanMessage({
    id: "summary",
    content: `${SUMMARY_MESSAGE_PREFIX}\n\n${snapshot}${cut ? "\n[summary cut at 1000 tokens]" : ""}\n\n<artifact_index>\nfiles read: src/parser.ts\n</artifact_index>`,
    response_metadata: { [COMPACTION_METADATA_KEY]: { strategy: "fullSummary", summary: true, summarizedMessages: 10 } },
  });
}

const notes = Array.from({ length: 40 }, (_, n) => `note ${n}: ${"the parser reads tokens ".repeat(4).trim()}`);
/** After the earlier summary: three tool actions and a last statement. */
const after: BaseMessage[] = [
  user("u1", "go on"),
  ...[1, 2, 3].flatMap((n) => [assistant(`a${n}`, `step ${n}`, [{ id: `c${n}`, name: "bash", args: { command: `make test-${n}` } }]), toolResult(`t${n}`, `c${n}`, `ok ${n}`)]),
  assistant("a4", "All three targets pass."),
];

describe("the no-model snapshot within a size", () => {
  it("leaves out the oldest knowledge first and keeps the goal, the newest actions and the task state", () => {
    const messages = [earlierSummary(notes, false), ...after];
    const whole = noModelSnapshot({ messages, artifacts: EMPTY_ARTIFACT_INDEX });
    expect(notes.every((note) => whole.includes(note))).toBe(true);
    const fitted = noModelSnapshot({ messages, artifacts: EMPTY_ARTIFACT_INDEX, maxCharacters: 2000 });
    expect(fitted.length).toBeLessThanOrEqual(2000);
    const kept = notes.filter((note) => fitted.includes(note));
    // The newest notes, then the step texts; every action and the task state.
    expect(kept).toEqual(notes.slice(notes.length - kept.length));
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(notes.length);
    expect(tagContent(fitted, "key_knowledge")).toContain("- assistant: All three targets pass.");
    expect(tagContent(fitted, "recent_actions")!.match(/make test-\d/g)).toEqual(["make test-1", "make test-2", "make test-3"]);
    expect(tagContent(fitted, "task_state")).toContain("last stated: All three targets pass.");
    expect(tagContent(fitted, "overall_goal")).toContain("fix the parser");
  });

  it("then constraints, changed files and the older actions, as few as it takes; the goal, the newest action and the task state stay", () => {
    const users = Array.from({ length: 6 }, (_, n) => user(`v${n}`, `constraint ${n}: ${"keep the public API ".repeat(5).trim()}`));
    const actions = Array.from({ length: 8 }, (_, n) => [assistant(`b${n}`, "", [{ id: `d${n}`, name: "bash", args: { command: `make check-${n}` } }]), toolResult(`r${n}`, `d${n}`, `passed ${n}`)]).flat();
    const messages = [earlierSummary(notes.slice(0, 3), false), ...users, ...actions, assistant("z", "Done for now.")];
    const artifacts = { ...EMPTY_ARTIFACT_INDEX, filesModified: Array.from({ length: 150 }, (_, n) => `src/module_${n}.py`) };
    const whole = noModelSnapshot({ messages, artifacts });
    const sections = (text: string) => ({
      knowledge: tagContent(text, "key_knowledge")!.trim(),
      constraints: tagContent(text, "active_constraints")!.trim(),
      files: tagContent(text, "file_system_state")!.trim(),
      actions: tagContent(text, "recent_actions")!.match(/make check-\d/g),
      task: tagContent(text, "task_state")!.trim(),
    });
    // Room for a few files and every action: knowledge and constraints go, the oldest files go.
    const withFiles = noModelSnapshot({ messages, artifacts, maxCharacters: whole.length - 2500 });
    expect(withFiles.length).toBeLessThanOrEqual(whole.length - 2500);
    const fewer = sections(withFiles);
    expect([fewer.knowledge, fewer.constraints]).toEqual(["(none recorded)", "(none recorded)"]);
    expect(fewer.files).toMatch(/^changed: \d+ more in the artifact index, src\/module_\d+\.py \(modified\), .*src\/module_149\.py \(modified\)$/);
    expect(fewer.actions).toEqual(Array.from({ length: 8 }, (_, n) => `make check-${n}`));
    // As few as it takes: one more file would not fit.
    const leftOut = Number(/(\d+) more/.exec(fewer.files)![1]);
    expect(leftOut).toBeGreaterThan(0);
    expect(leftOut).toBeLessThan(150);
    expect(withFiles.length + `, src/module_${leftOut - 1}.py (modified)`.length).toBeGreaterThan(whole.length - 2500);
    // No room even for the files: they go, then the oldest actions; the newest stays, over the limit if need be.
    const tiny = sections(noModelSnapshot({ messages, artifacts, maxCharacters: 100 }));
    expect(tiny.files).toBe("changed: 150 more in the artifact index");
    expect(tiny.actions).toEqual(["make check-7"]);
    expect(tiny.task).toBe("[IN PROGRESS] last stated: Done for now.");
  });

  it("carries a section that a cut at the token cap left open without the cut's note, the index after it, or part of its closing tag", () => {
    for (const tail of ["", "\n    </key_kn"]) {
      const snapshot = noModelSnapshot({ messages: [earlierSummary(notes.slice(0, 2), true, tail), ...after], artifacts: EMPTY_ARTIFACT_INDEX });
      expect(tagContent(snapshot, "key_knowledge")!.split("\n").filter((line) => line.trim() !== "")).toEqual([
        `        - ${notes[0]}`,
        `        - ${notes[1]}`,
        "        - assistant: step 2",
        "        - assistant: step 3",
        "        - assistant: All three targets pass.",
      ]);
      expect(snapshot).not.toContain("summary cut at");
      expect(snapshot).not.toContain("files read: src/parser.ts");
    }
  });

  it("autoCompaction without a summary model: every summary fits summaryMaxTokens whole, its newest sections in it", async () => {
    const session = loadTraceSessions(defaultTracesPath()).reduce((longest, each) => (each.messages.length > longest.messages.length ? each : longest));
    const counter = createTokenCounter();
    const policy = autoCompaction({ contextWindow: 8000, tokenCounter: counter });
    let history: BaseMessage[] = [];
    const summaries: string[] = [];
    for (const message of session.messages) {
      history = [...history, message];
      if (message.type !== "ai") continue;
      const result = await policy.compact(history.slice(0, -1));
      history = [...result.messages, message];
      if (result.status === "summarized") summaries.push(messageText(result.messages.find((each) => compactionMarkerOf(each)?.summary)!));
    }
    // Enough compactions for each later summary to carry an earlier one's sections (8 at the time of writing).
    expect(summaries.length).toBeGreaterThanOrEqual(5);
    for (const summary of summaries) {
      expect(summary).not.toContain("[summary cut at");
      const snapshot = summary.slice(summary.indexOf("<state_snapshot>"), summary.indexOf("</state_snapshot>") + "</state_snapshot>".length);
      expect(tagContent(snapshot, "recent_actions")).toMatch(/- bash\(/);
      expect(tagContent(snapshot, "task_state")).toContain("[IN PROGRESS]");
      expect(await counter.countText(snapshot)).toBeLessThanOrEqual(DEFAULT_AUTO_SUMMARY_MAX_TOKENS);
    }
  });
});
