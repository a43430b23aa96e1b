/**
 * fast-check generators for the property suite.
 *
 * Generators produce plain-data specs, and `buildHistory` turns a spec into fresh LangChain messages
 * inside each property run: a counterexample then prints as readable data, and no run can see a
 * message object another run (or a shrink step) already handed to a strategy or a counter.
 */
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import fc from "fast-check";
import { hardTruncate, selectiveCompact, slidingWindow, toolResultHiding, type TokenCounter } from "../../src/index.js";
import { type CompactionStrategy } from "../../src/extend/index.js";
import { EVERY_RUN } from "./hiding.js";

export const TOOL_NAMES = ["bash", "read_file", "search", "write_file"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

type ArgValue = string | number | boolean | null;

export type ContentPartSpec = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export interface MessageMetaSpec {
  /** Without an id the message is `id: undefined`, as messages built by hand often are. */
  readonly withId: boolean;
  readonly name?: string;
}

export interface ToolCallSpec {
  readonly name: ToolName;
  readonly args: Record<string, ArgValue>;
  readonly result: string;
  /** Results of parallel calls are ordered by this rank (then by call position). */
  readonly resultRank: number;
  readonly resultWithId: boolean;
  /** Whether the tool result carries the tool's name. */
  readonly resultNamed: boolean;
}

export type SegmentSpec =
  | { readonly kind: "human"; readonly content: string | ContentPartSpec[]; readonly meta: MessageMetaSpec }
  | { readonly kind: "assistant"; readonly content: string; readonly meta: MessageMetaSpec }
  | {
      readonly kind: "toolCalls";
      readonly content: string;
      readonly meta: MessageMetaSpec;
      readonly calls: ToolCallSpec[];
      /** A streamed reply: an AIMessageChunk whose tool_calls come from its tool_call_chunks. */
      readonly streamed: boolean;
    };

export interface HistorySpec {
  readonly systems: { readonly content: string; readonly withId: boolean }[];
  readonly segments: SegmentSpec[];
}

/** Mostly short ASCII, sometimes long, sometimes any Unicode (multi-byte text stresses exact counting and cutting). */
const text = (maxShort: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: maxShort }) },
    { weight: 3, arbitrary: fc.string({ minLength: 200, maxLength: 1_200 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 300 }) },
  );

/** Text a provider accepts as a message's whole content: never empty or only white space. */
const sendableText = (maxShort: number): fc.Arbitrary<string> => text(maxShort).map((value) => (value.trim() === "" ? `x${value}` : value));

const argKey = fc.string({ unit: fc.constantFrom(..."abcdefghij_"), minLength: 1, maxLength: 8 });
const argValue: fc.Arbitrary<ArgValue> = fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.boolean(), fc.constant(null));
const args = fc.dictionary(argKey, argValue, { maxKeys: 4 });

const meta = (names: readonly string[]): fc.Arbitrary<MessageMetaSpec> =>
  fc.record({ withId: fc.boolean(), name: fc.constantFrom(...names) }, { requiredKeys: ["withId"] });

const contentPart: fc.Arbitrary<ContentPartSpec> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: sendableText(120) }),
  fc.record({
    type: fc.constant("image_url" as const),
    image_url: fc.record({ url: fc.constantFrom("https://example.com/a.png", "data:image/png;base64,iVBORw0KGgo=") }),
  }),
);

const toolCall: fc.Arbitrary<ToolCallSpec> = fc.record({
  name: fc.constantFrom(...TOOL_NAMES),
  args,
  result: fc.oneof(fc.constantFrom("", "ok", "done."), text(300)),
  resultRank: fc.nat({ max: 3 }),
  resultWithId: fc.boolean(),
  resultNamed: fc.boolean(),
});

const segment: fc.Arbitrary<SegmentSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("human" as const),
      content: fc.oneof(sendableText(200), fc.array(contentPart, { minLength: 1, maxLength: 3 })),
      meta: meta(["alice", "bob"]),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("assistant" as const), content: sendableText(200), meta: meta(["agent"]) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("toolCalls" as const),
      content: fc.oneof(fc.constant(""), text(120)),
      meta: meta(["agent"]),
      calls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
      streamed: fc.boolean(),
    }),
  },
);

/** A valid history: 1-3 leading system messages, then human turns, assistant replies and tool-call groups. */
export const historySpec: fc.Arbitrary<HistorySpec> = fc.record({
  systems: fc.array(fc.record({ content: text(300), withId: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  segments: fc.array(segment, { maxLength: 30, size: "medium" }),
});

/**
 * Fresh messages for a spec. Message ids are `m<position>` (when present), call ids
 * `call_<segment>_<position>`, so both are unique within the history.
 */
export function buildHistory(spec: HistorySpec): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const idAt = (withId: boolean) => (withId ? `m${messages.length}` : undefined);
  const named = (name: string | undefined) => (name === undefined ? {} : { name });
  for (const system of spec.systems) messages.push(new SystemMessage({ id: idAt(system.withId), content: system.content }));
  spec.segments.forEach((segment, segmentNumber) => {
    switch (segment.kind) {
      case "human":
        messages.push(new HumanMessage({ id: idAt(segment.meta.withId), content: segment.content, ...named(segment.meta.name) }));
        break;
      case "assistant":
        messages.push(new AIMessage({ id: idAt(segment.meta.withId), content: segment.content, ...named(segment.meta.name) }));
        break;
      case "toolCalls": {
        const calls = segment.calls.map((call, position) => ({ ...call, id: `call_${segmentNumber}_${position}`, position }));
        messages.push(
          segment.streamed
            ? new AIMessageChunk({
                id: idAt(segment.meta.withId),
                content: segment.content,
                ...named(segment.meta.name),
                tool_call_chunks: calls.map((call) => ({
                  id: call.id,
                  name: call.name,
                  args: JSON.stringify(call.args),
                  index: call.position,
                  type: "tool_call_chunk" as const,
                })),
              })
            : new AIMessage({
                id: idAt(segment.meta.withId),
                content: segment.content,
                ...named(segment.meta.name),
                tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" as const })),
              }),
        );
        const answerOrder = [...calls].sort((a, b) => a.resultRank - b.resultRank || a.position - b.position);
        for (const call of answerOrder) {
          messages.push(
            new ToolMessage({
              id: idAt(call.resultWithId),
              content: call.result,
              tool_call_id: call.id,
              ...(call.resultNamed ? { name: call.name } : {}),
            }),
          );
        }
        break;
      }
    }
  });
  return messages;
}

/** Strategy options, some of them as fractions resolved against the history's token count. */
export type StrategySpec =
  | {
      readonly strategy: "toolResultHiding";
      readonly keepRecentGroups: number;
      readonly excludeTools?: ToolName[];
      readonly hideToolInputs?: boolean;
    }
  | { readonly strategy: "selectiveCompact"; readonly targetPermille: number }
  | { readonly strategy: "hardTruncate"; readonly maxTokensPermille: number; readonly margin: number; readonly keepRecent: number }
  | { readonly strategy: "slidingWindow"; readonly keepTurns: number };

export const strategySpecs: Record<StrategySpec["strategy"], fc.Arbitrary<StrategySpec>> = {
  toolResultHiding: fc.record(
    {
      strategy: fc.constant("toolResultHiding" as const),
      keepRecentGroups: fc.integer({ min: 0, max: 6 }),
      excludeTools: fc.subarray([...TOOL_NAMES]),
      hideToolInputs: fc.boolean(),
    },
    { requiredKeys: ["strategy", "keepRecentGroups"] },
  ),
  selectiveCompact: fc.record({ strategy: fc.constant("selectiveCompact" as const), targetPermille: fc.integer({ min: 0, max: 1_000 }) }),
  hardTruncate: fc.record({
    strategy: fc.constant("hardTruncate" as const),
    maxTokensPermille: fc.integer({ min: 0, max: 1_000 }),
    margin: fc.integer({ min: 8, max: 64 }),
    keepRecent: fc.integer({ min: 1, max: 12 }),
  }),
  slidingWindow: fc.record({ strategy: fc.constant("slidingWindow" as const), keepTurns: fc.integer({ min: 1, max: 4 }) }),
};

export interface BuiltStrategy {
  readonly strategy: CompactionStrategy;
  /** The resolved options, for assertions and failure messages. */
  readonly options: Record<string, unknown>;
}

const between = (low: number, high: number, permille: number) => Math.round(low + ((high - low) * permille) / 1_000);

/**
 * The strategy a spec describes, for one history:
 * - selectiveCompact: `target` between 1 and the history's tokens;
 * - hardTruncate: `maxTokens` between the leading system messages' tokens plus `margin` and the
 *   history's tokens (the history's tokens when that range is empty).
 */
export async function createStrategy(spec: StrategySpec, history: readonly BaseMessage[], tokenCounter: TokenCounter): Promise<BuiltStrategy> {
  switch (spec.strategy) {
    case "toolResultHiding": {
      const options = {
        keepRecentGroups: spec.keepRecentGroups,
        ...(spec.excludeTools === undefined ? {} : { excludeTools: spec.excludeTools }),
        ...(spec.hideToolInputs === undefined ? {} : { hideToolInputs: spec.hideToolInputs }),
      };
      return { strategy: toolResultHiding({ ...EVERY_RUN, ...options, tokenCounter }), options };
    }
    case "selectiveCompact": {
      const total = await tokenCounter.countMessages(history);
      const options = { target: Math.max(1, between(1, total, spec.targetPermille)) };
      return { strategy: selectiveCompact({ ...options, tokenCounter }), options };
    }
    case "hardTruncate": {
      const total = await tokenCounter.countMessages(history);
      const systems = history.filter((message) => message.type === "system");
      const low = (await tokenCounter.countMessages(systems)) + spec.margin;
      const options = { maxTokens: low <= total ? between(low, total, spec.maxTokensPermille) : total, keepRecent: spec.keepRecent };
      return { strategy: hardTruncate({ ...options, tokenCounter }), options };
    }
    case "slidingWindow": {
      const options = { keepTurns: spec.keepTurns };
      return { strategy: slidingWindow({ ...options, tokenCounter }), options };
    }
  }
}

/** Ways to break a valid history's tool pairing. */
export type MutationKind = "dropResult" | "dropAssistant" | "duplicateCallId" | "addOrphanResult" | "stripCallId" | "removeCall";

export interface MutationSpec {
  readonly kind: MutationKind;
  /** Picks the message to break (modulo the candidates). */
  readonly target: number;
  /** Picks a second position: a call, a later assistant message, an orphan's id. */
  readonly extra: number;
}

export const mutationSpec: fc.Arbitrary<MutationSpec> = fc.record({
  kind: fc.constantFrom<MutationKind>("dropResult", "dropAssistant", "duplicateCallId", "addOrphanResult", "stripCallId", "removeCall"),
  target: fc.nat({ max: 1_000 }),
  extra: fc.nat({ max: 1_000 }),
});

/** The problem a mutation of a valid history must make `validateToolPairing` report. */
export interface ExpectedProblem {
  readonly kind: "missing-call-id" | "duplicate-call-id" | "unanswered-call" | "orphan-result";
  readonly index: number;
}

export interface Mutated {
  readonly messages: BaseMessage[];
  /** The mutation actually applied (a mutation with nothing to act on adds an orphan result instead). */
  readonly applied: MutationKind;
  readonly expected: ExpectedProblem;
}

const isCallingAssistant = (message: BaseMessage): message is AIMessage =>
  AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0;

/** A new assistant message like `message` but with other tool calls. The input is never touched. */
function withToolCalls(message: AIMessage, toolCalls: ToolCall[]): AIMessage {
  return new AIMessage({
    id: message.id,
    content: message.content,
    ...(message.name === undefined ? {} : { name: message.name }),
    tool_calls: toolCalls,
  });
}

function replaceAt(messages: readonly BaseMessage[], position: number, message: BaseMessage): BaseMessage[] {
  return messages.map((existing, index) => (index === position ? message : existing));
}

function withoutAt(messages: readonly BaseMessage[], position: number): BaseMessage[] {
  return messages.filter((_, index) => index !== position);
}

const positionsWhere = (messages: readonly BaseMessage[], test: (message: BaseMessage) => boolean) =>
  messages.flatMap((message, position) => (test(message) ? [position] : []));

const pick = <T>(items: readonly T[], choice: number): T => items[choice % items.length]!;

/** The position of the first tool result after `from` that answers `callId`, or -1. */
const resultPosition = (messages: readonly BaseMessage[], from: number, callId: string | undefined) =>
  messages.findIndex((message, position) => position > from && ToolMessage.isInstance(message) && message.tool_call_id === callId);

/**
 * Break a history's tool pairing in one place. `expected` is exact for a valid input; on an input an
 * earlier mutation already broke, it is only a best guess.
 */
export function applyMutation(messages: readonly BaseMessage[], mutation: MutationSpec): Mutated {
  const callers = positionsWhere(messages, isCallingAssistant);
  const results = positionsWhere(messages, (message) => ToolMessage.isInstance(message));
  const addOrphan = (): Mutated => {
    const position = mutation.target % (messages.length + 1);
    const orphan = new ToolMessage({ content: "stray output", tool_call_id: `orphan_${mutation.target}_${mutation.extra}` });
    return {
      messages: [...messages.slice(0, position), orphan, ...messages.slice(position)],
      applied: "addOrphanResult",
      expected: { kind: "orphan-result", index: position },
    };
  };
  if (mutation.kind === "addOrphanResult") return addOrphan();
  if (mutation.kind === "dropResult") {
    if (results.length === 0) return addOrphan();
    const position = pick(results, mutation.target);
    const callId = (messages[position] as ToolMessage).tool_call_id;
    const caller = callers.filter((index) => index < position && (messages[index] as AIMessage).tool_calls!.some((call) => call.id === callId)).at(-1);
    return { messages: withoutAt(messages, position), applied: "dropResult", expected: { kind: "unanswered-call", index: caller ?? -1 } };
  }
  if (callers.length === 0) return addOrphan();
  const callerPosition = pick(callers, mutation.target);
  const caller = messages[callerPosition] as AIMessage;
  const calls = caller.tool_calls!;
  switch (mutation.kind) {
    case "dropAssistant": {
      const firstResult = Math.min(...calls.map((call) => resultPosition(messages, callerPosition, call.id)).filter((index) => index >= 0));
      return {
        messages: withoutAt(messages, callerPosition),
        applied: "dropAssistant",
        expected: { kind: "orphan-result", index: firstResult - 1 },
      };
    }
    case "duplicateCallId": {
      const call = calls.find((candidate) => typeof candidate.id === "string" && candidate.id !== "");
      if (call === undefined) return addOrphan();
      const repeated: ToolCall = { id: call.id, name: call.name, args: {}, type: "tool_call" };
      const later = positionsWhere(messages, (message) => AIMessage.isInstance(message)).filter((index) => index > callerPosition);
      if (later.length === 0) {
        return {
          messages: [...messages, new AIMessage({ content: "", tool_calls: [repeated] })],
          applied: "duplicateCallId",
          expected: { kind: "duplicate-call-id", index: messages.length },
        };
      }
      const position = pick(later, mutation.extra);
      const target = messages[position] as AIMessage;
      return {
        messages: replaceAt(messages, position, withToolCalls(target, [...(target.tool_calls ?? []), repeated])),
        applied: "duplicateCallId",
        expected: { kind: "duplicate-call-id", index: position },
      };
    }
    case "stripCallId": {
      const callPosition = mutation.extra % calls.length;
      const stripped = calls.map((call, position) => (position === callPosition ? { name: call.name, args: call.args, type: "tool_call" as const } : call));
      return {
        messages: replaceAt(messages, callerPosition, withToolCalls(caller, stripped)),
        applied: "stripCallId",
        expected: { kind: "missing-call-id", index: callerPosition },
      };
    }
    case "removeCall": {
      const callPosition = mutation.extra % calls.length;
      const answeredAt = resultPosition(messages, callerPosition, calls[callPosition]!.id);
      return {
        messages: replaceAt(messages, callerPosition, withToolCalls(caller, calls.filter((_, position) => position !== callPosition))),
        applied: "removeCall",
        expected: { kind: "orphan-result", index: answeredAt },
      };
    }
  }
}
