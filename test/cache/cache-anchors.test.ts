/**
 * Cache anchors: where they go (from the history alone), what `ChatAnthropic`'s own converter sends
 * for an anchored history (the same blocks, `cache_control` on the anchored ones), and what a real
 * `ChatAnthropic` puts in its request body.
 */
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import {
  InvalidOptionError,
  anthropicCacheAnchors,
  anthropicCacheAnchorsRunnable,
  assistantTextTrimming,
  cloneMessage,
  compactionMarkerOf,
  createTokenCounter,
  toolResultHiding,
} from "../../src/index.js";
import { cacheAnchorPositions } from "../../src/extend/index.js";
import { convertForAnthropic } from "../support/wire/anthropic-converter.js";
import { anthropicRejections, anthropicWire } from "../messages/wire.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";
import { assistant, step, system, toolResult, user } from "../support/builders.js";
import { bodyBreakpoints, recordingAnthropic } from "../support/recording-models.js";

const tokenCounter = createTokenCounter();
const steps = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, offset) => step(from + offset)).flat();
const hide = (messages: BaseMessage[], keepRecentGroups = 1, extra: Parameters<typeof toolResultHiding>[0] = {}) =>
  toolResultHiding({ ...EVERY_RUN, keepRecentGroups, tokenCounter, ...extra }).compact(messages);
const idsAt = (messages: readonly BaseMessage[], positions: readonly number[]) => positions.map((position) => messages[position]!.id);

/** Paths (`message/block`) of the `cache_control` fields in a converted payload, and the payload without them. */
function breakpoints(messages: readonly BaseMessage[]): { paths: string[]; stripped: unknown } {
  const payload = JSON.parse(JSON.stringify(convertForAnthropic(messages))) as { messages: { content: unknown }[]; system?: unknown };
  const paths: string[] = [];
  payload.messages.forEach((message, index) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block: Record<string, unknown>, position: number) => {
      if (block["cache_control"] === undefined) return;
      paths.push(`${index}/${position}`);
      delete block["cache_control"];
    });
  });
  return { paths, stripped: payload };
}

describe("cacheAnchorPositions", () => {
  /** Before a run, after it, and the first message the run changed. */
  async function acrossRuns(first: BaseMessage[], added: BaseMessage[], run: (messages: BaseMessage[]) => Promise<BaseMessage[]>) {
    const grown = [...(await run(first)), ...added];
    const after = await run(grown);
    return {
      before: idsAt(grown, cacheAnchorPositions(grown)),
      after: idsAt(after, cacheAnchorPositions(after)),
      changed: after.findIndex((message, position) => message !== grown[position]),
      grown,
    };
  }
  /** The request after a run reads at its previous anchor only if the requests before it anchored there and nothing up to there changed. */
  const readsAtPrevious = ({ before, after, changed, grown }: Awaited<ReturnType<typeof acrossRuns>>) =>
    before.at(-1) === after[0] && grown.findIndex((message) => message.id === after[0]) < changed;
  const hidingRun = (extra: Parameters<typeof toolResultHiding>[0] = {}) => {
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter, ...extra });
    return async (messages: BaseMessage[]) => (await hiding.compact(messages)).messages;
  };

  it("with nothing hidden: one anchor, on the assistant message of the first result", () => {
    const history = [system("s"), user("u"), ...steps(1, 3)];
    expect(idsAt(history, cacheAnchorPositions(history))).toEqual(["a1"]);
  });

  it("after a first hiding run: on the first result's group (where the requests before it anchored) and on the newest hidden result's", async () => {
    const { messages } = await hide([system("s"), user("u"), ...steps(1, 4)]);
    expect(messages.map((message) => compactionMarkerOf(message)?.batch ?? null)).toEqual([null, null, null, "c1", null, "c1", null, "c1", null, null]);
    expect(idsAt(messages, cacheAnchorPositions(messages))).toEqual(["a1", "a3"]);
  });

  it("the request after a run is anchored where the requests before it wrote, before anything the run changed", async () => {
    const across = await acrossRuns([system("s"), user("u"), ...steps(1, 3)], steps(4, 6), hidingRun());
    expect({ before: across.before, after: across.after, reads: readsAtPrevious(across) }).toEqual({ before: ["a1", "a2"], after: ["a2", "a5"], reads: true });
  });

  it("holds with emptied call arguments (hideToolInputs): anchors stand one group back", async () => {
    const across = await acrossRuns([system("s"), user("u"), ...steps(1, 4)], steps(5, 6), hidingRun({ hideToolInputs: true }));
    expect({ before: across.before, after: across.after, changed: across.grown[across.changed]!.id, reads: readsAtPrevious(across) }).toEqual({ before: ["a2"], after: ["a2", "a4"], changed: "a4", reads: true });
  });

  it("holds when a run hides the rest of a parallel group an earlier run began, emptying its arguments in the group's assistant message", async () => {
    const long = (id: string) => `output of ${id} `.repeat(30);
    const parallel = [assistant("a2", "", ["c2a", "c2b", "c2c", "c2d"].map((id) => ({ id }))), ...["c2a", "c2b", "c2c", "c2d"].map((id) => toolResult(`t${id.slice(1)}`, id, long(id)))];
    // Keep the 3 newest results: the first run hides t1 and t2a, the second (after a3's result) t2b, changing a2.
    const across = await acrossRuns([system("s"), user("u"), ...step(1), ...parallel], step(3), hidingRun({ keepRecentGroups: undefined, keepRecentResults: 3, hideToolInputs: true }));
    expect({ before: across.before, after: across.after, changed: across.grown[across.changed]!.id, reads: readsAtPrevious(across) }).toEqual({ before: ["a1"], after: ["a1"], changed: "a2", reads: true });
  });

  it("holds with the assistant text trimmed in the same batch, as autoCompaction does", async () => {
    const hiding = hidingRun();
    const trimming = assistantTextTrimming({ keepRecentGroups: 1, keepChars: 10, tokenCounter });
    const run = async (messages: BaseMessage[]) => (await trimming.compact(await hiding(messages))).messages;
    const talkative = (from: number, to: number) => steps(from, to).map((message) => (message.type === "ai" ? cloneMessage(message, { content: `thinking about step ${message.id} `.repeat(20) }) : message));
    const across = await acrossRuns([system("s"), user("u"), ...talkative(1, 3)], talkative(4, 6), run);
    expect({ after: across.after, changed: across.grown[across.changed]!.id, trimmed: compactionMarkerOf(across.grown[across.changed]!)?.trimmedText ?? false, reads: readsAtPrevious(across) }).toEqual({
      after: ["a2", "a5"],
      changed: "a3",
      trimmed: false,
      reads: true,
    });
  });

  it("holds when short or excluded results follow the newest hidden one (the next run starts after them)", async () => {
    // The first run hides t1 and t2; t3 is too short to hide and t4's tool is excluded, t5 is kept.
    const first = [system("s"), user("u"), ...steps(1, 2), ...step(3, "ok"), assistant("a4", "plan", [{ id: "c4", name: "read_plan" }]), toolResult("t4", "c4", "plan ".repeat(100), "read_plan"), ...step(5)];
    const across = await acrossRuns(first, steps(6, 8), hidingRun({ excludeTools: ["read_plan"] }));
    expect({ before: across.before, after: across.after, changed: across.grown[across.changed]!.id, reads: readsAtPrevious(across) }).toEqual({ before: ["a1", "a2"], after: ["a2", "a7"], changed: "t5", reads: true });
  });

  it("finds results given as tool_result blocks (Anthropic's form)", async () => {
    const anthropicStep = (n: number): BaseMessage[] => [
      new AIMessage({ id: `a${n}`, content: [{ type: "tool_use", id: `toolu_${n}`, name: "bash", input: { command: `cmd ${n}` } }], tool_calls: [{ id: `toolu_${n}`, name: "bash", args: { command: `cmd ${n}` }, type: "tool_call" }] }),
      new HumanMessage({ id: `h${n}`, content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: `output ${n} `.repeat(30) }] }),
    ];
    const { messages } = await hide([user("u"), ...anthropicStep(1), ...anthropicStep(2), ...anthropicStep(3)]);
    expect(idsAt(messages, cacheAnchorPositions(messages))).toEqual(["a1", "a2"]);
  });

  it("results cleared without a batch (LangChain's ClearToolUsesEdit): only the next anchor", () => {
    const cleared = (id: string, callId: string) =>
      new ToolMessage({ id, tool_call_id: callId, content: "[cleared]", response_metadata: { context_editing: { cleared: true, strategy: "clear_tool_uses" } } });
    const history = [user("u"), assistant("a1", "", [{ id: "c1" }]), cleared("t1", "c1"), assistant("a2", "", [{ id: "c2" }]), toolResult("t2", "c2"), assistant("a3", "done")];
    expect(idsAt(history, cacheAnchorPositions(history))).toEqual(["a1"]);
  });

  it("none without a tool result", () => {
    expect(cacheAnchorPositions([system("s"), user("u"), assistant("a1", "hello")])).toEqual([]);
  });
});

describe("anthropicCacheAnchors", () => {
  it("sends what ChatAnthropic sends without anchors, cache_control on the last block of each anchored message, and never changes its input", async () => {
    const { messages } = await hide([system("s"), user("u"), ...steps(1, 4)]);
    const snapshot = JSON.stringify(messages);
    const anchored = anthropicCacheAnchors(messages);
    const plain = breakpoints(messages);
    const marked = breakpoints(anchored);
    // Wire messages: u, a1, t1, a2, t2, ...: a1 is message 1, a3 is message 5; each sends a text and a tool_use block.
    expect({ plain: plain.paths, marked: marked.paths, same: marked.stripped }).toEqual({ plain: [], marked: ["1/1", "5/1"], same: plain.stripped });
    expect(anthropicRejections(anthropicWire(anchored))).toEqual([]);
    expect(JSON.stringify(messages)).toBe(snapshot);
    expect(anchored.filter((message, position) => message !== messages[position]).map((message) => message.id)).toEqual(["a1", "a3"]);
  });

  const shapes: [string, AIMessage, string[]][] = [
    ["empty text and two calls", new AIMessage({ id: "x", content: "", tool_calls: [{ id: "c1", name: "bash", args: { a: 1 }, type: "tool_call" }, { id: "c2", name: "bash", args: {}, type: "tool_call" }] }), ["tool_use", "tool_use"]],
    ["tool_use blocks in the content", new AIMessage({ id: "x", content: [{ type: "text", text: "Reading" }, { type: "tool_use", id: "c1", name: "bash", input: { a: 1 } }, { type: "tool_use", id: "c2", name: "bash", input: {} }], tool_calls: [{ id: "c1", name: "bash", args: { a: 1 }, type: "tool_call" }, { id: "c2", name: "bash", args: {}, type: "tool_call" }] }), ["text", "tool_use", "tool_use"]],
    ["a text block and calls not in the content", new AIMessage({ id: "x", content: [{ type: "text", text: "Reading" }], tool_calls: [{ id: "c1", name: "bash", args: { a: 1 }, type: "tool_call" }, { id: "c2", name: "bash", args: {}, type: "tool_call" }] }), ["text", "tool_use", "tool_use"]],
  ];
  for (const [name, shape, types] of shapes) {
    it(`anchors an assistant message with ${name}: the converter's blocks, the last marked`, () => {
      const history = [user("u"), shape, toolResult("t1", "c1", "x".repeat(400)), toolResult("t2", "c2", "y".repeat(400))];
      const marked = breakpoints(anthropicCacheAnchors(history));
      const sent = (convertForAnthropic(anthropicCacheAnchors(history)).messages[1]!.content as { type: string }[]).map((block) => block.type);
      expect({ paths: marked.paths, same: marked.stripped, sent }).toEqual({ paths: [`1/${types.length - 1}`], same: breakpoints(history).stripped, sent: types });
    });
  }

  it("anchors a streamed reply (text, tool_use with its input as a string, input_json_delta) as ChatAnthropic sends it", () => {
    const streamed = new AIMessageChunk({
      id: "x",
      content: [{ type: "text", text: "Reading", index: 0 }, { type: "tool_use", id: "c1", name: "bash", input: "", index: 1 }, { type: "input_json_delta", input: '{"a":1}', index: 1 }],
      tool_call_chunks: [{ id: "c1", name: "bash", args: '{"a":1}', index: 1, type: "tool_call_chunk" }],
    });
    const history = [user("u"), streamed, toolResult("t1", "c1", "x".repeat(400))];
    const marked = breakpoints(anthropicCacheAnchors(history));
    expect({ paths: marked.paths, same: marked.stripped }).toEqual({ paths: ["1/1"], same: breakpoints(history).stripped });
  });

  it("adds none where a breakpoint with a longer lifetime would follow a shorter one", async () => {
    const { messages } = await hide([system("s"), user("u"), ...steps(1, 4)]);
    const own = (ttl: "5m" | "1h") => new HumanMessage({ id: "own", content: [{ type: "text", text: "note", cache_control: { type: "ephemeral", ...(ttl === "1h" ? { ttl } : {}) } }] });
    const count = (history: BaseMessage[], options: Parameters<typeof anthropicCacheAnchors>[1]) => breakpoints(anthropicCacheAnchors(history, options)).paths.length;
    expect({
      // A 1-hour breakpoint after 5-minute anchors: rejected by Anthropic, so none.
      laterLonger: count([...messages, own("1h")], {}),
      laterSame: count([...messages, own("1h")], { ttl: "1h" }),
      // 1-hour anchors after a 5-minute breakpoint on a tool definition: none.
      earlierShorter: count(messages, { ttl: "1h", externalBreakpoints: ["5m"] }),
      earlierLonger: count(messages, { externalBreakpoints: ["1h"] }),
    }).toEqual({ laterLonger: 1, laterSame: 3, earlierShorter: 0, earlierLonger: 2 });
  });

  it("leaves an assistant message whose last block takes no cache_control (thinking) or that ChatAnthropic formats apart (v1)", () => {
    const thinking = new AIMessage({ id: "x", content: [{ type: "tool_use", id: "c1", name: "bash", input: {} }, { type: "thinking", thinking: "hm", signature: "s" }], tool_calls: [{ id: "c1", name: "bash", args: {}, type: "tool_call" }] });
    const v1 = new AIMessage({ id: "y", content: "", tool_calls: [{ id: "c1", name: "bash", args: {}, type: "tool_call" }], response_metadata: { output_version: "v1" } });
    for (const message of [thinking, v1]) {
      const history = [user("u"), message, toolResult("t1", "c1")];
      expect(anthropicCacheAnchors(history)).toEqual(history);
    }
  });

  it("gives the anchors a 1-hour lifetime when asked (a request's breakpoints must not grow longer-lived towards its end), and rejects a bad option", async () => {
    const { messages } = await hide([system("s"), user("u"), ...steps(1, 4)]);
    const content = (ttl: "5m" | "1h") => (anthropicCacheAnchors(messages, { ttl })[2]!.content as { cache_control?: unknown }[]).at(-1)!.cache_control;
    expect([content("1h"), content("5m")]).toEqual([{ type: "ephemeral", ttl: "1h" }, { type: "ephemeral" }]);
    const errors = await Promise.all([caught(() => anthropicCacheAnchors(messages, { ttl: "2h" } as never)), caught(() => anthropicCacheAnchorsRunnable({ anchors: 3 } as never))]);
    expect(errors.map((error) => [error instanceof InvalidOptionError, (error as Error).message])).toEqual([
      [true, expect.stringContaining("ttl")],
      [true, expect.stringContaining("anchors")],
    ]);
  });

  it("adds none when the request has fewer than two breakpoints left", async () => {
    const { messages } = await hide([system("s"), user("u"), ...steps(1, 4)]);
    const withOwn = [...messages, new HumanMessage({ id: "own", content: [{ type: "text", text: "a", cache_control: { type: "ephemeral" } }, { type: "text", text: "b", cache_control: { type: "ephemeral" } }] })];
    // 4 - automatic caching's 1 - the history's own 2 = 1 left; without automatic caching, 2 are left.
    expect([breakpoints(anthropicCacheAnchors(withOwn)).paths.length, breakpoints(anthropicCacheAnchors(withOwn, { automaticCaching: false })).paths.length]).toEqual([2, 4]);
  });
});

describe("a real ChatAnthropic", () => {
  it("sends the anchors with automatic caching's breakpoint: three of the four a request may have", async () => {
    const { model, bodies } = recordingAnthropic();
    const hiding = toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter });
    const chain = hiding.pipe(anthropicCacheAnchorsRunnable()).pipe(model.withConfig({ cache_control: { type: "ephemeral" } }));
    await chain.invoke([system("s"), user("u"), ...steps(1, 4)]);
    expect(bodyBreakpoints(bodies[0]!)).toEqual(["top", "1/1", "5/1"]);
  });
});
