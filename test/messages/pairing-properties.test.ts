/**
 * Random histories whose calls take every form ChatOpenAI and ChatAnthropic produce (results as tool
 * messages or as `tool_result` blocks in human messages, text before or after them), with ids drawn
 * from a small pool (so ids repeat, results go missing, arrive late or twice): `repairToolPairing`
 * must return a history that validates, that both providers accept as sent, that accounts for
 * every input message, and it must leave the input as it was.
 */
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ToolCallIndexBuilder, indexToolCallGroups, type ToolCallIndex } from "../../src/messages/tool-call-groups.js";
import { repairToolPairing, validateToolPairing } from "../../src/index.js";
import { expectEveryMessageAccountedOnce, expectHistoryUnchanged, snapshotHistory } from "../support/invariants.js";
import { anthropicWireProblems, formatProblems } from "../support/wire/index.js";
import { wireRejections } from "./wire.js";

type Form = "plain" | "openai" | "openaiInvalidOnly" | "anthropic" | "anthropicUnlisted" | "chunk" | "v1" | "responses";

interface CallSpec {
  readonly id: string | undefined;
  readonly name: string;
  readonly path: string;
}

type MessageSpec =
  | { readonly kind: "human"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string; readonly form: Form; readonly calls: CallSpec[] }
  | { readonly kind: "tool"; readonly id: string; readonly text: string }
  /** A human message of `tool_result` blocks (Anthropic's form), maybe with text before or after them. */
  | { readonly kind: "results"; readonly ids: string[]; readonly text: "none" | "before" | "after" };

const ID_POOL = ["c0", "c1", "c2", "c3", "c4"];
const words = fc.constantFrom("ok", "reading", "done", "one more", "it says 42");
const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  id: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...ID_POOL) }, { weight: 1, arbitrary: fc.constant(undefined) }),
  name: fc.constantFrom("read", "bash"),
  path: fc.constantFrom("a", "b"),
});
const messageSpec: fc.Arbitrary<MessageSpec> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("human" as const), text: words }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("assistant" as const),
      text: fc.oneof(fc.constant(""), words),
      form: fc.constantFrom<Form>("plain", "openai", "openaiInvalidOnly", "anthropic", "anthropicUnlisted", "chunk", "v1", "responses"),
      calls: fc.array(callSpec, { maxLength: 3 }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("tool" as const), id: fc.constantFrom(...ID_POOL), text: words }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("results" as const),
      ids: fc.array(fc.constantFrom(...ID_POOL), { minLength: 1, maxLength: 3 }),
      text: fc.constantFrom<"none" | "before" | "after">("none", "none", "before", "after"),
    }),
  },
);
const historySpec = fc.array(messageSpec, { maxLength: 14 });

const rawCall = (call: CallSpec & { id: string }, args = JSON.stringify({ path: call.path })) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: args } });
const toolCall = (call: CallSpec) => ({ id: call.id, name: call.name, args: { path: call.path }, type: "tool_call" as const });

/** An assistant message in one of the forms the integrations produce. */
function assistantMessage(spec: Extract<MessageSpec, { kind: "assistant" }>, id: string): AIMessage {
  const withId = spec.calls.filter((call): call is CallSpec & { id: string } => call.id !== undefined);
  // Without calls, a message needs text: an empty one is a different problem than pairing.
  const text = withId.length === 0 && spec.text === "" ? "thinking" : spec.text;
  switch (spec.form) {
    case "plain":
      return new AIMessage({ id, content: text, tool_calls: spec.calls.map(toolCall) });
    case "openai":
      return new AIMessage({ id, content: text, tool_calls: withId.map(toolCall), additional_kwargs: { tool_calls: withId.map((call) => rawCall(call)) } });
    case "openaiInvalidOnly":
      return new AIMessage({
        id,
        content: text,
        tool_calls: [],
        invalid_tool_calls: withId.map((call) => ({ id: call.id, name: call.name, args: "{bad", error: "Malformed args.", type: "invalid_tool_call" as const })),
        additional_kwargs: { tool_calls: withId.map((call) => rawCall(call, "{bad")) },
      });
    case "anthropic":
    case "anthropicUnlisted": {
      const blocks = withId.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: { path: call.path } }));
      // Unlisted: the last block's call is missing from tool_calls.
      const listed = spec.form === "anthropic" ? withId : withId.slice(0, -1);
      return new AIMessage({ id, content: [...(text === "" ? [] : [{ type: "text", text }]), ...blocks], tool_calls: listed.map(toolCall) });
    }
    case "chunk":
      return new AIMessageChunk({
        id,
        content: text,
        tool_call_chunks: withId.map((call, index) => ({ id: call.id, name: call.name, args: JSON.stringify({ path: call.path }), index, type: "tool_call_chunk" as const })),
      });
    case "v1":
      return new AIMessage({
        id,
        content: [...(text === "" ? [] : [{ type: "text" as const, text }]), ...withId.map((call) => ({ type: "tool_call" as const, id: call.id, name: call.name, args: { path: call.path } }))],
        response_metadata: { output_version: "v1" },
      });
    case "responses":
      return new AIMessage({
        id,
        content: text,
        tool_calls: withId.map(toolCall),
        response_metadata: {
          output: withId.map((call, index) => ({ type: "function_call", id: `fc_${index}`, call_id: call.id, name: call.name, arguments: JSON.stringify({ path: call.path }) })),
        },
      });
  }
}

function buildHistory(specs: readonly MessageSpec[]): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage({ id: "s", content: "be brief" })];
  specs.forEach((spec, position) => {
    const id = `m${position}`;
    if (spec.kind === "human") messages.push(new HumanMessage({ id, content: spec.text }));
    else if (spec.kind === "tool") messages.push(new ToolMessage({ id, content: spec.text, tool_call_id: spec.id }));
    else if (spec.kind === "results") {
      const blocks = spec.ids.map((callId) => ({ type: "tool_result", tool_use_id: callId, content: `output of ${callId}` }));
      const text = [{ type: "text", text: "and so?" }];
      messages.push(new HumanMessage({ id, content: spec.text === "none" ? blocks : spec.text === "before" ? [...text, ...blocks] : [...blocks, ...text] }));
    }
    else messages.push(assistantMessage(spec, id));
  });
  return messages;
}

describe("repairToolPairing over random histories in every provider form", () => {
  // Raw OpenAI calls beside an empty tool_calls make AIMessage's constructor warn.
  beforeAll(() => void vi.spyOn(console, "warn").mockImplementation(() => {}));
  afterAll(() => vi.restoreAllMocks());

  it("returns a history that validates and that both providers accept, and leaves the input as it was", () => {
    fc.assert(
      fc.property(historySpec, (specs) => {
        const history = buildHistory(specs);
        const snapshot = snapshotHistory(history);
        const repair = repairToolPairing(history);
        expectHistoryUnchanged(snapshot);
        expect(validateToolPairing(repair.messages)).toEqual([]);
        // OpenAI has no tool_result blocks: a history with them is for Anthropic only.
        const anthropicOnly = specs.some((spec) => spec.kind === "results");
        // (Histories here need not open with a user message: that is not pairing.)
        const anthropic = anthropicWireProblems(repair.messages).filter((problem) => !["no-messages", "first-not-user"].includes(problem.rule));
        expect(formatProblems(anthropic)).toBe("");
        if (!anthropicOnly) expect(wireRejections(repair.messages)).toEqual({ openai: [], anthropic: [] });
      }),
      { numRuns: 300 },
    );
  });

  it("accounts for every input message once, and keeps the order but for the moved results", () => {
    fc.assert(
      fc.property(historySpec, (specs) => {
        const history = buildHistory(specs);
        const repair = repairToolPairing(history);
        expectEveryMessageAccountedOnce(history, repair);
        const afterOf = new Map(repair.replaced.map((entry) => [entry.index, entry.after] as const));
        for (const { index, to, message, blockPositions } of repair.moved) {
          // Blocks moved out of a human message are in a new one; a whole moved message is the input's (or its copy).
          if (blockPositions === undefined) expect(message).toBe(history[index]);
          else expect(message.id).toBeUndefined();
          expect(repair.messages[to]).toBe(blockPositions === undefined ? (afterOf.get(index) ?? message) : message);
        }
        const movedOutputs = new Set(repair.moved.map(({ to }) => to));
        const inputPosition = new Map(history.map((message, position) => [message, position] as const));
        const replacedPosition = new Map(repair.replaced.map((entry) => [entry.after, entry.index] as const));
        const sources = repair.messages.flatMap((message, to) => (movedOutputs.has(to) ? [] : [inputPosition.get(message) ?? replacedPosition.get(message)!]));
        expect(sources).toEqual([...sources].sort((a, b) => a - b));
      }),
      { numRuns: 200 },
    );
  });

  it("is done in one go: repairing the output changes nothing", () => {
    fc.assert(
      fc.property(historySpec, (specs) => {
        const repaired = repairToolPairing(buildHistory(specs)).messages;
        const again = repairToolPairing(repaired);
        expect(again.problems).toEqual([]);
        expect(again.messages).toHaveLength(repaired.length);
        again.messages.forEach((message, position) => expect(message).toBe(repaired[position]));
      }),
      { numRuns: 100 },
    );
  });

  it("is built incrementally: after each message, the builder's index is the index of the messages so far", () => {
    const plain = (index: ToolCallIndex) => ({
      groups: index.groups.map((group) => ({ ...group, callIds: [...group.callIds], resultIndices: [...group.resultIndices] })),
      groupOf: [...index.groupOf],
      problems: [...index.problems],
      renamedCalls: [...index.renamedCalls],
      renamedResults: [...index.renamedResults],
      renamedResultBlocks: [...index.renamedResultBlocks],
    });
    fc.assert(
      fc.property(historySpec, (specs) => {
        const history = buildHistory(specs);
        const builder = new ToolCallIndexBuilder();
        history.forEach((message, position) => {
          builder.push(message);
          expect(plain(builder.view())).toEqual(plain(indexToolCallGroups(history.slice(0, position + 1))));
        });
      }),
      { numRuns: 100 },
    );
  });
});
