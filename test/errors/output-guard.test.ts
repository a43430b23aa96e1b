/**
 * A run whose output a provider would reject (a lone surrogate, invalid content in a message the
 * strategy made) fails and changes nothing: no output ever carries what the input check rejects.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createTokenCounter, type CompactionEvent } from "../../src/index.js";
import { CompactionStrategy } from "../../src/extend/index.js";
import type { PreparedHistory, StrategyOutcome } from "../../src/strategies/compaction-strategy.js";
import { sameObjects, step, system, user } from "../support/builders.js";

const tokenCounter = createTokenCounter({ mode: "approximate" });

/** A strategy that replaces the second message by `make()`, as a buggy cut would. */
class Replacing extends CompactionStrategy {
  readonly strategyName = "replacing";
  readonly #make: () => BaseMessage;

  constructor(make: () => BaseMessage, onEvent?: (event: CompactionEvent) => void) {
    super({ tokenCounter, ...(onEvent ? { onEvent } : {}) });
    this.#make = make;
  }

  protected async run({ messages }: PreparedHistory): Promise<StrategyOutcome> {
    const after = this.#make();
    return {
      status: "compacted",
      messages: [messages[0]!, after, ...messages.slice(2)],
      replaced: [{ index: 1, before: messages[1]!, after }],
      trigger: "forced",
    };
  }
}

const input = (): BaseMessage[] => [system("s"), user("u1", "a long request ".repeat(50)), ...step(1)];

describe("the output guard", () => {
  it("fails a run whose output has a lone surrogate, returning the input", async () => {
    const events: CompactionEvent[] = [];
    const history = input();
    const result = await new Replacing(() => new HumanMessage({ id: "u1", content: "a long req\uD83D" }), (event) => events.push(event)).compact(history);
    const reason =
      "replacing would have returned a history a provider rejects (output message 1 (human) has a lone surrogate (half of a UTF-16 pair, not valid Unicode) in its content); the history is unchanged";
    expect([result.status, result.reason, result.trigger]).toEqual(["failed", reason, "forced"]);
    expect(sameObjects(result.messages, history)).toBe(true);
    expect([result.removed, result.replaced]).toEqual([[], []]);
    expect(events.map(({ status, error }) => [status, error])).toEqual([["failed", reason]]);
  });

  it("fails a run whose output has content that is not content", async () => {
    const bad = new HumanMessage({ id: "u1", content: "x" });
    (bad as unknown as { content: unknown }).content = { text: "x" };
    const history = input();
    const result = await new Replacing(() => bad).compact(history);
    expect([result.status, result.reason]).toEqual([
      "failed",
      "replacing would have returned a history a provider rejects (output message 1 (human) has content that is neither a string nor an array of content blocks: got an object); the history is unchanged",
    ]);
    expect(sameObjects(result.messages, history)).toBe(true);
  });

  it("lets a sound output through", async () => {
    const history = input();
    const result = await new Replacing(() => new HumanMessage({ id: "u1", content: "a long req 😀" })).compact(history);
    expect(result.status).toBe("compacted");
    expect(result.messages[1]!.content).toBe("a long req 😀");
  });
});
