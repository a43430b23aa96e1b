import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createTokenCounter, slidingWindow } from "../src/index.js";
import { assistant, ids, step, system, user, sameObjects } from "./support/builders.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

describe("slidingWindow", () => {
  it("keeps the system message and the newest user turns, tool exchanges included", async () => {
    const input = [system("s"), user("u1"), assistant("a1", "hi"), user("u2"), ...step(1), user("u3"), ...step(2), assistant("a3", "done")];
    const result = await slidingWindow({ keepTurns: 2, tokenCounter }).compact(input);
    expect(result.status).toBe("truncated");
    expect(ids(result.messages)).toEqual(["s", "u2", "a1", "t1", "u3", "a2", "t2", "a3"]);
    expect(result.removed.map(({ index }) => index)).toEqual([1, 2]);
  });

  it("leaves a history with no more turns than keepTurns alone", async () => {
    const input = [system("s"), user("u1"), ...step(1), ...step(2)];
    const result = await slidingWindow({ keepTurns: 1, tokenCounter }).compact(input);
    expect(result.status).toBe("noop");
    expect(sameObjects(result.messages, input)).toBe(true);
  });

  it("counts no turn at a human message of tool_result blocks (Anthropic's form), which stays with its call", async () => {
    const call = (n: number) =>
      new AIMessage({ id: `a${n}`, content: [{ type: "tool_use", id: `toolu_${n}`, name: "read", input: {} }], tool_calls: [{ id: `toolu_${n}`, name: "read", args: {}, type: "tool_call" }] });
    const answer = (n: number) => new HumanMessage({ id: `h${n}`, content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: `output ${n}` }] });
    const input = [system("s"), user("u1"), call(1), answer(1), call(2), answer(2), user("u2"), call(3), answer(3), assistant("a4", "done")];
    const one = await slidingWindow({ keepTurns: 1, tokenCounter }).compact(input);
    expect(ids(one.messages)).toEqual(["s", "u2", "a3", "h3", "a4"]);
    const two = await slidingWindow({ keepTurns: 2, tokenCounter }).compact(input);
    expect(two.status).toBe("noop");
    expect(sameObjects(two.messages, input)).toBe(true);
  });
});
