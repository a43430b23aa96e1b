/**
 * The index of one message without tool calls (what a receipt reads of the result it hides) is built
 * without a collector: it is the very index the collector gives, field for field and in the same key
 * order, for every message of the recorded sessions and of the benchmark's synthetic history, under
 * the default limits and smaller ones; a receipt reads it as the shared empty index when it holds nothing.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { syntheticHistory } from "../../bench/synthetic.js";
import type { ArtifactIndexLimits } from "../../src/index.js";
import { EMPTY_ARTIFACT_INDEX, extractArtifacts } from "../../src/extend/index.js";
import { isEmptyArtifactIndex, messageArtifacts } from "../../src/messages/artifact-index.js";

/** The collector's index of a message: an empty earlier index given, so the one-message path is not taken. */
const collected = (message: BaseMessage, limits?: ArtifactIndexLimits) => extractArtifacts([message], [EMPTY_ARTIFACT_INDEX], limits);

const LIMITS: readonly (ArtifactIndexLimits | undefined)[] = [undefined, { urls: 1, errors: 2 }, { urls: 0, errors: 0 }];

function expectSameIndex(messages: readonly BaseMessage[]): { urls: number; errors: number } {
  let urls = 0;
  let errors = 0;
  for (const message of messages) {
    for (const limits of LIMITS) {
      const expected = collected(message, limits);
      const index = extractArtifacts([message], [], limits);
      // JSON keeps the key order: a hidden copy's marker stores the index as it is.
      expect(JSON.stringify(index)).toBe(JSON.stringify(expected));
      if (limits === undefined) {
        // A receipt's reading: the same index, the shared empty one when it holds nothing.
        const read = messageArtifacts(message);
        expect(JSON.stringify(read)).toBe(JSON.stringify(expected));
        expect(read === EMPTY_ARTIFACT_INDEX).toBe(isEmptyArtifactIndex(expected));
        urls += index.urls.length;
        errors += index.errors.length;
      }
    }
  }
  return { urls, errors };
}

describe("the index of one message", () => {
  it("is the collector's, for every message of the recorded sessions", () => {
    const messages = loadTraceSessions(defaultTracesPath()).flatMap((session) => session.messages);
    const found = expectSameIndex(messages);
    expect(messages).toHaveLength(4_806);
    expect(found).toEqual({ urls: 128, errors: 1_309 });
  });

  it("is the collector's, for every message of the synthetic history and for messages with URLs, repeats, blocks and markers", () => {
    const url = "see https://example.com/a, then https://example.com/b. and https://example.com/a;";
    const errors = "ValueError: x\nok\nValueError: x\n  E   assert 1 == 2\nTypeError: " + "y".repeat(300);
    const messages: BaseMessage[] = [
      ...syntheticHistory(600, 7),
      new ToolMessage({ content: `${url}\n${errors}`, tool_call_id: "c1" }),
      new HumanMessage(`${errors}\n${url}`),
      new AIMessage(`${errors}\n${url}`),
      new AIMessage({ content: errors, tool_calls: [] }),
      new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "c2", content: [{ type: "text", text: errors }] } as never, { type: "text", text: url }] }),
      new ToolMessage({ content: "[hidden]", tool_call_id: "c3", response_metadata: { compaction: { strategy: "toolResultHiding", hidden: true } } }),
      new ToolMessage({ content: errors, tool_call_id: "c4", response_metadata: { compaction: { strategy: "toolResultHiding", hidden: true, artifacts: { ...EMPTY_ARTIFACT_INDEX, errors: ["E1"] } } } }),
      new ToolMessage({ content: "", tool_call_id: "c5" }),
    ];
    expect(expectSameIndex(messages)).toEqual({ urls: 8, errors: 10 });
  });
});
