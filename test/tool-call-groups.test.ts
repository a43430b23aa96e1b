import { describe, expect, it } from "vitest";
import { indexToolCallGroups, safeCutPoints, userTurnStarts } from "../src/index.js";
import { assistant, system, toolResult, user } from "./support/builders.js";

describe("indexToolCallGroups", () => {
  it("makes one group of an assistant message and the results of its parallel calls", () => {
    const messages = [
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t2", "c2"),
      toolResult("t1", "c1"),
      assistant("a2", "done"),
    ];
    const index = indexToolCallGroups(messages);
    expect(index.groups).toEqual([{ assistantIndex: 1, callIds: ["c1", "c2"], resultIndices: [2, 3], end: 3 }]);
    expect([...index.groupOf]).toEqual([-1, 0, 0, 0, -1]);
    expect(index.problems).toEqual([]);
  });

  it("numbers groups in order and ignores assistant messages without calls", () => {
    const messages = [
      assistant("a0", "thinking"),
      assistant("a1", "", [{ id: "c1" }]),
      toolResult("t1", "c1"),
      assistant("a2", "", [{ id: "c2" }]),
      toolResult("t2", "c2"),
    ];
    expect([...indexToolCallGroups(messages).groupOf]).toEqual([-1, 0, 0, 1, 1]);
  });
});

describe("safeCutPoints", () => {
  it("marks positions inside a group unsafe and every other position safe", () => {
    const messages = [
      system("s"),
      user("u1"),
      assistant("a1", "", [{ id: "c1" }, { id: "c2" }]),
      toolResult("t1", "c1"),
      toolResult("t2", "c2"),
      user("u2"),
    ];
    // positions 3 and 4 would separate a1 from its results
    expect([...safeCutPoints(messages)]).toEqual([1, 1, 1, 0, 0, 1, 1]);
  });

  it("treats an empty history as one safe position", () => {
    expect([...safeCutPoints([])]).toEqual([1]);
  });
});

describe("userTurnStarts", () => {
  it("lists the human messages that start a turn", () => {
    const messages = [system("s"), user("u1"), assistant("a1", "", [{ id: "c1" }]), toolResult("t1", "c1"), user("u2"), assistant("a2", "ok")];
    expect(userTurnStarts(messages)).toEqual([1, 4]);
  });
});
