/**
 * Random histories and `ClearToolUsesEdit` configurations, as plain data (a counterexample prints
 * readably), for comparing this package's `ClearToolUsesEdit` with LangChain's on the same input.
 *
 * Every result is longer than LangChain's placeholder (a result no longer than it is left as it is
 * here, a documented difference), and commands repeat, so that some results are superseded.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";

export const PARITY_TOOLS = ["bash", "read_file", "search", "read_plan"] as const;

export interface CallSpec {
  readonly tool: (typeof PARITY_TOOLS)[number];
  /** The call's argument: a small pool, so the same call recurs. */
  readonly arg: string;
  /** The result's length in characters (at least 16). */
  readonly size: number;
}

export type TurnSpec = { readonly kind: "human"; readonly size: number } | { readonly kind: "calls"; readonly text: number; readonly calls: CallSpec[] };

export interface TriggerSpec {
  readonly tokens?: number;
  readonly messages?: number;
}

export interface EditSpec {
  readonly trigger: TriggerSpec | TriggerSpec[];
  readonly keep: { readonly messages: number } | { readonly tokens: number };
  readonly clearAtLeast?: number;
  readonly excludeTools: string[];
  readonly clearToolInputs: boolean;
}

const call: fc.Arbitrary<CallSpec> = fc.record({
  tool: fc.constantFrom(...PARITY_TOOLS),
  arg: fc.constantFrom("ls", "cat a.py", "src/app.py", "notes.md", "pytest", "q"),
  size: fc.oneof(fc.integer({ min: 16, max: 200 }), fc.integer({ min: 200, max: 3_000 })),
});

const turn: fc.Arbitrary<TurnSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("human" as const), size: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("calls" as const), text: fc.integer({ min: 0, max: 80 }), calls: fc.array(call, { minLength: 1, maxLength: 3 }) }) },
);

export const turnsSpec: fc.Arbitrary<TurnSpec[]> = fc.array(turn, { minLength: 1, maxLength: 30 });

const triggerSpec: fc.Arbitrary<TriggerSpec> = fc
  .record({ tokens: fc.integer({ min: 1, max: 6_000 }), messages: fc.integer({ min: 1, max: 40 }) }, { requiredKeys: [] })
  .filter((trigger) => trigger.tokens !== undefined || trigger.messages !== undefined);

export const editSpec: fc.Arbitrary<EditSpec> = fc.record(
  {
    trigger: fc.oneof(triggerSpec, fc.array(triggerSpec, { minLength: 1, maxLength: 3 })),
    keep: fc.oneof(fc.record({ messages: fc.integer({ min: 0, max: 8 }) }), fc.record({ tokens: fc.integer({ min: 0, max: 6_000 }) })),
    clearAtLeast: fc.integer({ min: 0, max: 4_000 }),
    excludeTools: fc.subarray(["read_plan", "search"]),
    clearToolInputs: fc.boolean(),
  },
  { requiredKeys: ["trigger", "keep", "excludeTools", "clearToolInputs"] },
);

/** Text of `size` characters: words from a seed letter, so results differ from one another. */
const filler = (seed: number, size: number) => `${String.fromCharCode(97 + (seed % 26))}${"lorem ipsum ".repeat(Math.ceil(size / 12))}`.slice(0, size);

/** Fresh messages for a spec: call ids `call_<turn>_<n>`, message ids `m<position>`. */
export function parityHistory(turns: readonly TurnSpec[]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "m0", content: "start" })];
  turns.forEach((spec, turnNumber) => {
    const id = () => `m${messages.length}`;
    if (spec.kind === "human") {
      messages.push(new HumanMessage({ id: id(), content: filler(turnNumber, spec.size) }));
      return;
    }
    const calls = spec.calls.map((entry, position) => ({ ...entry, id: `call_${turnNumber}_${position}` }));
    const argsOf = (entry: CallSpec) => (entry.tool === "bash" ? { command: entry.arg } : entry.tool === "read_file" ? { path: entry.arg } : { query: entry.arg });
    messages.push(
      new AIMessage({ id: id(), content: filler(turnNumber, spec.text), tool_calls: calls.map((entry) => ({ id: entry.id, name: entry.tool, args: argsOf(entry), type: "tool_call" as const })) }),
    );
    calls.forEach((entry, position) => messages.push(new ToolMessage({ id: id(), content: filler(turnNumber * 3 + position, entry.size), tool_call_id: entry.id, name: entry.tool })));
  });
  messages.push(new HumanMessage({ id: `m${messages.length}`, content: "and now?" }));
  return messages;
}

/** What both implementations must agree on: each message's type, content, call arguments and LangChain marker. */
export const view = (messages: readonly BaseMessage[]) =>
  messages.map((message) => [
    message.type,
    message.content,
    AIMessage.isInstance(message) ? message.tool_calls?.map((call) => call.args) : undefined,
    (message.response_metadata as Record<string, unknown> | undefined)?.["context_editing"],
  ]);
