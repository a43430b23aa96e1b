/**
 * `ClearToolUsesEdit` against LangChain's own `ClearToolUsesEdit` on random histories and random
 * configurations (support/clear-tool-uses-histories.ts), with LangChain's `countTokensApproximately`.
 *
 * One fixed seed keeps CI reproducible; `FC_SEED=<n>` (or `random`) and `FC_NUM_RUNS=<n>` search
 * further. A failure prints the seed and the shrunk history and configuration.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { ClearToolUsesEdit as LangChainClearToolUsesEdit, countTokensApproximately } from "langchain";
import { describe, expect, it } from "vitest";
import { ClearToolUsesEdit } from "../../src/middleware/index.js";
import { editSpec, parityHistory, turnsSpec, type EditSpec, type TurnSpec } from "./support/clear-tool-uses-histories.js";

const NUM_RUNS = Number(process.env["FC_NUM_RUNS"] ?? 300);
const seedSetting = process.env["FC_SEED"] ?? "20261129";
const seed = seedSetting === "random" ? Math.floor(Math.random() * 0x7fffffff) : Number(seedSetting);

/** What both implementations must agree on: each message's type, content, call arguments and LangChain marker. */
const view = (messages: readonly BaseMessage[]) =>
  messages.map((message) => [
    message.type,
    message.content,
    AIMessage.isInstance(message) ? message.tool_calls?.map((call) => call.args) : undefined,
    (message.response_metadata as Record<string, unknown> | undefined)?.["context_editing"],
  ]);

/** The history each implementation leaves, as views. */
export async function bothEdits(turns: readonly TurnSpec[], config: EditSpec) {
  const theirs = parityHistory(turns);
  await new LangChainClearToolUsesEdit(config as never).apply({ messages: theirs, countTokens: countTokensApproximately, model: undefined as never });
  const ours = parityHistory(turns);
  await new ClearToolUsesEdit(config).apply({ messages: ours, countTokens: countTokensApproximately });
  return { theirs: view(theirs), ours: view(ours) };
}

describe("ClearToolUsesEdit and LangChain's on random histories", () => {
  it("leave the same history", async () => {
    const warn = console.warn;
    // LangChain warns at each construction with clearAtLeast (deprecated).
    console.warn = () => {};
    try {
      await fc.assert(
        fc.asyncProperty(turnsSpec, editSpec, async (turns, config) => {
          const { theirs, ours } = await bothEdits(turns, config);
          expect(ours).toEqual(theirs);
        }),
        { numRuns: NUM_RUNS, seed },
      );
    } finally {
      console.warn = warn;
    }
  });
});
