/**
 * What counts toward the window in `compactionMiddleware`'s default hook: the request's system
 * message and the bound tools' schemas, from the first call, with a model that reports no usage.
 * Each request is measured as the model gets it: its messages (the system message included) plus the
 * tools' schemas as LangChain converts them, with the default counter.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { autoCompaction, createTokenCounter, readCompactionLog } from "../../src/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { user } from "../support/builders.js";
import { scriptedModel } from "./support/scripted.js";

const counter = createTokenCounter();
const WORDS = "river stone lantern orbit maple copper signal harbor violet engine meadow falcon quartz timber".split(" ");
/** A text of exactly `tokens` tokens (o200k_base), varied by `seed`. */
async function textOf(tokens: number, seed: string): Promise<string> {
  const words = Array.from({ length: tokens * 2 }, (_, index) => `${WORDS[(index * 7 + seed.length) % WORDS.length]}${index % 13 === 0 ? ` ${seed}` : ""}`);
  return counter.truncateText(words.join(" "), tokens);
}

/** The `lookup` tool (results of `resultTokens` tokens) and `extra` more tools whose schemas total about `schemaTokens`. */
async function toolsFor(resultTokens: number, extra: number, schemaTokens: number) {
  const result = await textOf(resultTokens, "result");
  const lookup = tool(async (_args: unknown, config) => new ToolMessage({ id: `t-${config.toolCall!.id}`, content: result, tool_call_id: config.toolCall!.id!, name: "lookup" }), {
    name: "lookup",
    description: "look something up",
    schema: z.object({ query: z.string().optional() }),
  });
  const others = await Promise.all(
    Array.from({ length: extra }, async (_, index) =>
      tool(async () => "unused", { name: `tool_${index}`, description: await textOf(Math.round(schemaTokens / extra) - 30, `t${index}`), schema: z.object({ path: z.string().describe("the path") }) }),
    ),
  );
  return [lookup, ...others];
}

/** Every request's tokens as the model got it, the window, the log. */
async function run(options: { window: number; promptTokens: number; extraTools: number; schemaTokens: number; steps: number; resultTokens: number }, compact: boolean) {
  const tools = await toolsFor(options.resultTokens, options.extraTools, options.schemaTokens);
  const schemas = await counter.countText(JSON.stringify(tools.map((entry) => convertToOpenAITool(entry))));
  const model = scriptedModel(options.steps);
  const middleware = compact ? [compactionMiddleware(autoCompaction({ contextWindow: options.window }))] : [];
  const agent = createAgent({ model, tools, systemPrompt: await textOf(options.promptTokens, "prompt"), middleware, checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "t" }, recursionLimit: 200 };
  await agent.invoke({ messages: [user("h1")] }, config);
  const requests = await Promise.all(model.calls.map(async (call) => (await counter.countMessages(call.messages as BaseMessage[])) + schemas));
  const { values } = await agent.graph.getState(config);
  // The whole log: the state keeps only its newest records (no store here: the rest is in the archive channel).
  const log = (await readCompactionLog(values as Parameters<typeof readCompactionLog>[0])).map((record) => [record.status, record.reason ?? ""] as const);
  return { requests, largest: Math.max(...requests), share: Math.max(...requests) / options.window, schemas, log };
}

describe("the system message and the tools' schemas count toward the window", () => {
  it("a 2,500-token systemPrompt at an 8,000-token window, no usage reports: every request fits", async () => {
    const scenario = { window: 8000, promptTokens: 2500, extraTools: 0, schemaTokens: 0, steps: 12, resultTokens: 700 };
    const without = await run(scenario, false);
    const withCompaction = await run(scenario, true);
    console.log(`2,500-token prompt, 8,000 window: without compaction largest ${without.largest}; with it largest ${withCompaction.largest} (${(withCompaction.share * 100).toFixed(1)}% of the window); requests ${withCompaction.requests.join(", ")}`);
    expect({ overflowsWithout: without.largest > scenario.window, fitsWith: withCompaction.requests.every((tokens) => tokens <= scenario.window), compacted: withCompaction.log.some(([status]) => status === "summarized" || status === "truncated") }).toEqual({
      overflowsWithout: true,
      fitsWith: true,
      compacted: true,
    });
  });

  it("a 6,000-token prompt and 20 tools (about 8,900 tokens of schemas) at a 12,000-token window: the record says they alone do not fit", async () => {
    const scenario = { window: 12_000, promptTokens: 6000, extraTools: 19, schemaTokens: 8900, steps: 12, resultTokens: 700 };
    const withCompaction = await run(scenario, true);
    console.log(`6,000-token prompt + 20 tools (${withCompaction.schemas} schema tokens), 12,000 window: largest ${withCompaction.largest} (${(withCompaction.share * 100).toFixed(1)}% of the window); requests ${withCompaction.requests.join(", ")}`);
    // Nothing can fit: every call's compaction says so in the log (none fired before they counted).
    const reasons = withCompaction.log.map(([status, reason]) => [status, /hard-limit truncation failed: cannot fit 12000 tokens: system messages and the newest exchange still need 1[56]\d{3}$/.test(reason)]);
    expect({ schemasOver8500: withCompaction.schemas > 8500, calls: withCompaction.requests.length, reasons }).toEqual({
      schemasOver8500: true,
      calls: 13,
      reasons: withCompaction.requests.map(() => ["failed", true]),
    });
  });
});
