/**
 * Drive the example's LangGraph server through `@langchain/langgraph-sdk`: create a thread, stream
 * one run per user turn (printing what each node wrote and every compaction), read the thread's
 * state, and restore its full history with `restoreThreadHistory` (the thread's state plus the
 * archive the compaction node wrote in the server's store, over HTTP). Its last turn asks the agent
 * to recall a file of the first turn, long compacted: the agent's `recall` tool reads it back from
 * the server's store; the client then reads the same reference through the SDK (`recallTool` with
 * the SDK `Client` as its store).
 *
 *   npx langgraphjs dev --config examples/langgraph-server/langgraph.json --no-browser   # terminal 1
 *   npx tsx examples/langgraph-server/client.ts [--url http://localhost:2024] [--turns 6]   # terminal 2
 *
 * It ends by printing the command that opens the thread in the inspector.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { BaseMessage } from "@langchain/core/messages";
import { Client } from "@langchain/langgraph-sdk";
import { fromPlainMessages, restoreThreadHistory, type CompactionRecord, type MessageInput, type RestorableState } from "../../src/index.js";
import { recallTool } from "../../src/middleware/index.js";

/** The user message of turn `turn`: it names two files for the agent to read. */
export function userMessage(turn: number): { type: "human"; id: string; content: string } {
  return { type: "human", id: `user-${turn}`, content: `Turn ${turn}: read src/module_${turn}_a.ts and src/module_${turn}_b.ts, then tell me what they export.` };
}

/** The user message of the recall turn `turn`: it asks for a file of the first turn, long compacted by then. */
export function recallMessage(turn: number): { type: "human"; id: string; content: string } {
  return { type: "human", id: `user-${turn}`, content: `Turn ${turn}: recall how src/module_1_a.ts starts.` };
}

/** Options of {@link runClient}. */
export interface ClientOptions {
  /** The server's URL. @default "http://localhost:2024" */
  readonly apiUrl?: string;
  /** The graph's id in langgraph.json. @default "agent" */
  readonly assistant?: string;
  /** User turns that read files, one run each. @default 6 */
  readonly turns?: number;
  /** Whether a last turn asks the agent to recall a file of the first turn. @default true */
  readonly recall?: boolean;
  /** Where progress goes. @default console.log */
  readonly print?: (line: string) => void;
}

/** What {@link runClient} did. */
export interface ClientReport {
  readonly threadId: string;
  /** Every message that entered the thread, in order: the user's, then what the nodes streamed. */
  readonly sent: readonly BaseMessage[];
  /** The thread's state at the end: its current (compacted) messages and its compaction log. */
  readonly state: RestorableState;
  /** `restoreThreadHistory(client, threadId)`: the thread's full original history. */
  readonly history: readonly BaseMessage[];
  /** Whether `history` holds, by id and in order, exactly the messages of `sent`. */
  readonly complete: boolean;
  /** The node of each streamed message chunk (`messages-tuple` stream mode): which nodes' model calls streamed tokens. */
  readonly streamedTokenNodes: readonly string[];
  /**
   * The recall turn's first recall, read again by the client through the SDK: the reference the agent
   * passed, what the agent's tool returned in the server, and what `recallTool({ store: client })`
   * returns for it; null without a recall turn.
   */
  readonly recalled: { readonly ref: string; readonly inServer: string; readonly throughSdk: string } | null;
}

const describeRecord = (record: CompactionRecord) =>
  `${record.strategy} ${record.status}: ${record.tokensBefore ?? "?"} → ${record.tokensAfter ?? "?"} tokens, ${record.messagesBefore} → ${record.messagesAfter} messages`;

/** Run the example's conversation on a new thread of the server at `apiUrl`. */
export async function runClient(options: ClientOptions = {}): Promise<ClientReport> {
  const { apiUrl = "http://localhost:2024", assistant = "agent", turns = 6, recall = true, print = console.log } = options;
  const client = new Client({ apiUrl });
  const { thread_id: threadId } = await client.threads.create();
  print(`thread ${threadId} on ${apiUrl}`);
  const sent: MessageInput[] = [];
  const streamedTokenNodes = new Set<string>();
  const last = recall ? turns + 1 : turns;
  for (let turn = 1; turn <= last; turn++) {
    const input = turn > turns ? recallMessage(turn) : userMessage(turn);
    sent.push(input);
    print(`> ${input.content}`);
    const stream = client.runs.stream(threadId, assistant, { input: { messages: [input] }, streamMode: ["updates", "messages-tuple"] });
    for await (const chunk of stream) {
      if (chunk.event === "error") throw new Error(`the run failed: ${JSON.stringify(chunk.data)}`);
      if (chunk.event === "messages") {
        const [, metadata] = chunk.data as [unknown, { langgraph_node?: string }];
        streamedTokenNodes.add(metadata.langgraph_node ?? "?");
        continue;
      }
      if (chunk.event !== "updates") continue;
      for (const [node, update] of Object.entries(chunk.data as Record<string, { messages?: MessageInput[]; compactionLog?: CompactionRecord[] } | null>)) {
        for (const record of update?.compactionLog ?? []) print(`  [${node}] compaction: ${describeRecord(record)}`);
        if (node === "compact") continue;
        for (const message of update?.messages ?? []) {
          sent.push(message);
          const [converted] = fromPlainMessages([message]);
          const calls = (converted as { tool_calls?: { name: string; args: unknown }[] }).tool_calls ?? [];
          const text = typeof converted!.content === "string" ? converted!.content : "";
          print(`  [${node}] ${converted!.type}: ${calls.length > 0 ? calls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(", ") : `${text.split("\n")[0]}${text.includes("\n") ? " …" : ""}`}`);
        }
      }
    }
  }
  const { values: state } = await client.threads.getState<RestorableState>(threadId);
  const log = state.compactionLog ?? [];
  print(`state: ${state.messages.length} messages in context, ${log.length} compactions (${log.map((record) => record.status).join(", ")})`);
  const history = await restoreThreadHistory(client, threadId);
  const entered = fromPlainMessages(sent);
  const complete = history.length === entered.length && history.every((message, position) => message.id === entered[position]!.id);
  print(
    complete
      ? `restoreThreadHistory: ${history.length} messages, the ${entered.length} that entered the thread, in order`
      : `restoreThreadHistory: ${history.length} messages, NOT the ${entered.length} that entered the thread`,
  );
  const recalled = recall ? await recallThroughSdk(client, threadId, state, entered) : null;
  if (recalled) print(`recall through the SDK: ${recalled.throughSdk === recalled.inServer ? "the same text the agent got" : "NOT the text the agent got"} for ${recalled.ref}`);
  print(`inspect it: npm run inspect -- --langgraph-url ${apiUrl} --thread ${threadId}`);
  return { threadId, sent: entered, state, history, complete, streamedTokenNodes: [...streamedTokenNodes].sort(), recalled };
}

/**
 * The agent's first recall of the thread, and the same reference read by the client through the SDK:
 * `recallTool` given the SDK `Client` as its store, the thread's id in the config and its state.
 */
async function recallThroughSdk(client: Client, threadId: string, state: RestorableState, entered: readonly BaseMessage[]): Promise<ClientReport["recalled"]> {
  const call = entered.flatMap((message) => (message as { tool_calls?: { id?: string; name: string; args: Record<string, unknown> }[] }).tool_calls ?? []).find((each) => each.name === "recall");
  const result = entered.find((message) => message.type === "tool" && (message as { tool_call_id?: string }).tool_call_id === call?.id);
  if (!call || !result) return null;
  const ref = String(call.args["ref"]);
  const throughSdk = await recallTool({ store: client }).invoke({ ref }, { configurable: { thread_id: threadId }, state } as never);
  return { ref, inServer: String(result.content), throughSdk: String(throughSdk) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { url: { type: "string" }, turns: { type: "string" }, assistant: { type: "string" } } });
  const turns = values.turns === undefined ? undefined : Number(values.turns);
  if (turns !== undefined && !(Number.isInteger(turns) && turns > 0)) throw new Error(`--turns must be a positive whole number, not ${values.turns}`);
  const report = await runClient({ ...(values.url ? { apiUrl: values.url } : {}), ...(values.assistant ? { assistant: values.assistant } : {}), ...(turns ? { turns } : {}) });
  if (!report.complete) process.exitCode = 1;
}
