/**
 * Provider-shaped histories for the wire property suite, as plain-data specs (readable
 * counterexamples) that `buildWireHistory` turns into fresh LangChain messages.
 *
 * The shapes real clients produce: plain `tool_calls`; OpenAI's raw `additional_kwargs.tool_calls`
 * beside them (as `ChatOpenAI` returns them); streamed `AIMessageChunk`s with `tool_call_chunks`;
 * Anthropic `tool_use` content blocks, answered by tool messages or by `tool_result` blocks in a
 * human message (Anthropic's native form, which OpenAI rejects); parallel calls answered in any
 * order; a call id reused by a later call (OpenAI accepts it, Anthropic does not); emoji and astral
 * text; long tool outputs so that strategies actually compact; and sometimes a trailing assistant
 * message whose calls have no results yet.
 */
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";

export const WIRE_TOOL_NAMES = ["bash", "read_file", "search"] as const;

export type CallShape = "langchain" | "openaiRaw" | "chunk" | "anthropicBlocks";
export type ResultForm = "toolMessages" | "anthropicHuman";

export interface WireCallSpec {
  readonly name: (typeof WIRE_TOOL_NAMES)[number];
  readonly args: Record<string, string | number>;
  readonly result: string;
  /** Results of parallel calls are ordered by this rank (then by call position). */
  readonly rank: number;
  /** A tool message's content as a list of one text block rather than a string. */
  readonly resultAsBlocks: boolean;
}

export type WireSegmentSpec =
  | { readonly kind: "human"; readonly text: string; readonly asBlocks: boolean; readonly image: boolean }
  | { readonly kind: "assistant"; readonly text: string; readonly asBlocks: boolean }
  | {
      readonly kind: "calls";
      readonly text: string;
      readonly shape: CallShape;
      readonly calls: readonly WireCallSpec[];
      readonly results: ResultForm;
      /** Reuse the id of the earliest call of the history for this group's first call (when there is one). */
      readonly reuseId: boolean;
    };

export interface WireHistorySpec {
  readonly systems: readonly string[];
  readonly segments: readonly WireSegmentSpec[];
  /** A last assistant message with calls not answered yet (the tools have not run). */
  readonly pending: boolean;
}

const EMOJI = ["😀", "𝒜", "👩‍👩‍👧", "🇫🇷", "漢字", "é", "\u{1F680}"];

/** Never empty nor blank (both providers reject those as input): short ASCII, astral/emoji, any graphemes. */
export const nonBlankText = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength }) },
      { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom(...EMOJI), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 12 }).map((parts) => parts.join("")) },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength }) },
    )
    .map((text) => (/\S/.test(text) ? text : `t${text}`));

/** Tool output: often long (repeated lines, with emoji at the cut-prone places), sometimes empty. */
const toolOutput: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: nonBlankText(200) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(nonBlankText(40), fc.constantFrom(...EMOJI), fc.integer({ min: 20, max: 400 }))
      .map(([line, emoji, times]) => `${emoji}${`${line} ${emoji}\n`.repeat(times)}`),
  },
  { weight: 1, arbitrary: fc.constantFrom("", "ok") },
);

const argValue = fc.oneof(nonBlankText(60), fc.integer());
const args = fc.dictionary(fc.constantFrom("command", "path", "query", "limit"), argValue, { maxKeys: 3 });

const callSpec: fc.Arbitrary<WireCallSpec> = fc.record({
  name: fc.constantFrom(...WIRE_TOOL_NAMES),
  args,
  result: toolOutput,
  rank: fc.nat({ max: 3 }),
  resultAsBlocks: fc.boolean(),
});

const segment: fc.Arbitrary<WireSegmentSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("human" as const), text: nonBlankText(200), asBlocks: fc.boolean(), image: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("assistant" as const), text: nonBlankText(200), asBlocks: fc.boolean() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      text: fc.oneof(fc.constant(""), nonBlankText(80)),
      shape: fc.oneof(
        { weight: 3, arbitrary: fc.constant<CallShape>("langchain") },
        { weight: 2, arbitrary: fc.constant<CallShape>("openaiRaw") },
        { weight: 2, arbitrary: fc.constant<CallShape>("chunk") },
        { weight: 2, arbitrary: fc.constant<CallShape>("anthropicBlocks") },
      ),
      calls: fc.array(callSpec, { minLength: 1, maxLength: 3 }),
      results: fc.oneof({ weight: 12, arbitrary: fc.constant<ResultForm>("toolMessages") }, { weight: 1, arbitrary: fc.constant<ResultForm>("anthropicHuman") }),
      reuseId: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
);

/** Histories as real clients hand them over: leading system messages, then a user turn and the rest. */
export const wireHistorySpec: fc.Arbitrary<WireHistorySpec> = fc.record({
  systems: fc.array(nonBlankText(200), { minLength: 1, maxLength: 2 }),
  segments: fc
    .tuple(nonBlankText(120), fc.array(segment, { maxLength: 24 }))
    .map(([first, rest]): WireSegmentSpec[] => [{ kind: "human", text: first, asBlocks: false, image: false }, ...rest]),
  pending: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

type BuiltCall = WireCallSpec & { readonly id: string; readonly position: number };

function callingMessage(spec: Extract<WireSegmentSpec, { kind: "calls" }>, calls: readonly BuiltCall[], id: string): AIMessage {
  const toolCalls = calls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" as const }));
  switch (spec.shape) {
    case "langchain":
      return new AIMessage({ id, content: spec.text, tool_calls: toolCalls });
    case "openaiRaw":
      return new AIMessage({
        id,
        content: spec.text,
        tool_calls: toolCalls,
        additional_kwargs: { tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } })) },
      });
    case "chunk":
      return new AIMessageChunk({
        id,
        content: spec.text,
        tool_call_chunks: calls.map((call) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args), index: call.position, type: "tool_call_chunk" as const })),
      });
    case "anthropicBlocks":
      return new AIMessage({
        id,
        content: [
          ...(spec.text === "" ? [] : [{ type: "text" as const, text: spec.text }]),
          ...calls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.args })),
        ],
        tool_calls: toolCalls,
      });
  }
}

/**
 * Fresh messages for a spec. Message ids are `m<position>`; call ids `call_<segment>_<position>`
 * (`toolu_...` for Anthropic blocks), unique unless a group reuses the first call's id.
 */
export function buildWireHistory(spec: WireHistorySpec): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const nextId = () => `m${messages.length}`;
  let firstCallId: string | undefined;
  for (const text of spec.systems) messages.push(new SystemMessage({ id: nextId(), content: text }));
  spec.segments.forEach((segment, number) => {
    if (segment.kind === "human") {
      const blocks = [{ type: "text" as const, text: segment.text }, ...(segment.image ? [{ type: "image_url" as const, image_url: { url: "https://example.com/a.png" } }] : [])];
      messages.push(new HumanMessage({ id: nextId(), content: segment.asBlocks || segment.image ? blocks : segment.text }));
      return;
    }
    if (segment.kind === "assistant") {
      messages.push(new AIMessage({ id: nextId(), content: segment.asBlocks ? [{ type: "text", text: segment.text }] : segment.text }));
      return;
    }
    const prefix = segment.shape === "anthropicBlocks" ? "toolu" : "call";
    const calls = segment.calls.map((call, position) => ({
      ...call,
      position,
      id: position === 0 && segment.reuseId && firstCallId !== undefined ? firstCallId : `${prefix}_${number}_${position}`,
    }));
    firstCallId ??= calls[0]!.id;
    messages.push(callingMessage(segment, calls, nextId()));
    const answers = [...calls].sort((a, b) => a.rank - b.rank || a.position - b.position);
    if (segment.results === "anthropicHuman") {
      messages.push(new HumanMessage({ id: nextId(), content: answers.map((call) => ({ type: "tool_result", tool_use_id: call.id, content: call.result })) }));
      return;
    }
    for (const call of answers) {
      const content = call.resultAsBlocks ? [{ type: "text" as const, text: call.result === "" ? "(no output)" : call.result }] : call.result;
      messages.push(new ToolMessage({ id: nextId(), content, tool_call_id: call.id, name: call.name }));
    }
  });
  if (spec.pending) messages.push(new AIMessage({ id: nextId(), content: "", tool_calls: [{ id: "call_pending", name: "bash", args: { command: "ls" }, type: "tool_call" }] }));
  return messages;
}
