/**
 * `anthropicCacheAnchorsMiddleware` in a real `createAgent`, after `compactionMiddleware` and beside
 * LangChain's `anthropicPromptCachingMiddleware`: the request a real `ChatAnthropic` sends carries
 * the anchors, the agent's state does not, and a request to another provider is left alone.
 */
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { anthropicPromptCachingMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, compactionMarkerOf, createTokenCounter, toolResultHiding } from "../../src/index.js";
import { anthropicCacheAnchorsMiddleware, compactionMiddleware } from "../../src/middleware/index.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";
import { step, user } from "../support/builders.js";
import { bodyBreakpoints, recordingAnthropic, recordingOpenAI } from "../support/recording-models.js";

const tokenCounter = createTokenCounter();
const history = (): BaseMessage[] => [user("u"), ...[1, 2, 3, 4].flatMap((n) => step(n))];
const hiding = () => compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1, tokenCounter }));

describe("anthropicCacheAnchorsMiddleware", () => {
  it("anchors the request ChatAnthropic sends after the hiding, and leaves the agent's state without cache_control", async () => {
    const { model, bodies } = recordingAnthropic();
    const agent = createAgent({ model, tools: [], middleware: [hiding(), anthropicPromptCachingMiddleware(), anthropicCacheAnchorsMiddleware()] });
    const state = await agent.invoke({ messages: history() });
    // Wire messages: u, a1, t1, ..., a4, t4: the anchors are on a1 (the first group, where earlier requests anchored) and a3 (the newest hidden result's).
    expect(bodyBreakpoints(bodies[0]!)).toEqual(["top", "1/1", "5/1"]);
    expect(state.messages.map((message) => compactionMarkerOf(message)?.batch ?? null).slice(0, 9)).toEqual([null, null, "c1", null, "c1", null, "c1", null, null]);
    expect(JSON.stringify(state.messages)).not.toContain("cache_control");
  });

  it("gives the anchors the lifetime of the request's own breakpoint (1 hour here)", async () => {
    const { model, bodies } = recordingAnthropic();
    await createAgent({ model, tools: [], middleware: [hiding(), anthropicPromptCachingMiddleware({ ttl: "1h" }), anthropicCacheAnchorsMiddleware()] }).invoke({ messages: history() });
    const body = bodies[0]!;
    const blocks = (body["messages"] as { content: { cache_control?: unknown }[] }[]).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    expect([body["cache_control"], ...blocks.flatMap((block) => (block.cache_control === undefined ? [] : [block.cache_control]))]).toEqual([
      { type: "ephemeral", ttl: "1h" },
      { type: "ephemeral", ttl: "1h" },
      { type: "ephemeral", ttl: "1h" },
    ]);
  });

  it("counts the breakpoints of the system prompt createAgent keeps apart: none added past Anthropic's 4", async () => {
    const { model, bodies } = recordingAnthropic();
    const systemPrompt = new SystemMessage({ content: [{ type: "text", text: "rules", cache_control: { type: "ephemeral" } }, { type: "text", text: "more rules", cache_control: { type: "ephemeral" } }] });
    await createAgent({ model, tools: [], systemPrompt, middleware: [hiding(), anthropicPromptCachingMiddleware(), anthropicCacheAnchorsMiddleware()] }).invoke({ messages: history() });
    const system = bodies[0]!["system"] as { cache_control?: unknown }[];
    // The system prompt's 2 and the request's own: 2 anchors would make 5.
    expect({ system: system.filter((block) => block.cache_control !== undefined).length, rest: bodyBreakpoints(bodies[0]!) }).toEqual({ system: 2, rest: ["top"] });
  });

  it("leaves a request to another provider as it is", async () => {
    const sent = async (middleware: ReturnType<typeof anthropicCacheAnchorsMiddleware>[]) => {
      const { model, bodies } = recordingOpenAI();
      await createAgent({ model, tools: [], middleware: [hiding(), ...middleware] }).invoke({ messages: history() });
      return bodies[0];
    };
    expect(await sent([anthropicCacheAnchorsMiddleware()])).toEqual(await sent([]));
  });

  it("rejects an unknown option with a typed error", async () => {
    expect(await caught(() => anthropicCacheAnchorsMiddleware({ automatic: true } as never))).toBeInstanceOf(InvalidOptionError);
  });
});
