import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, isCommand } from "@langchain/langgraph";
import type { InModelCompaction, ModelCallRequest } from "./in-model-call.js";
import type { Prepared } from "./in-model-prepare.js";
import { isContextOverflow, retryAfterOverflow } from "./overflow-retry.js";

/**
 * The `wrapModelCall` of `compactionMiddleware({ hook: "beforeModel" })`: the model call as it is
 * (the hook compacted the state in its own step), and, when the provider reports a context overflow,
 * one forced compaction of what the model got and one retry, written as the default hook's retry is.
 * @internal
 */
export async function overflowOnlyModelCall<Request extends ModelCallRequest, Response>(
  compaction: InModelCompaction,
  request: Request,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Response | Command> {
  try {
    return await handler(request);
  } catch (error) {
    const state = (request.state as { messages?: unknown } | undefined)?.messages ?? request.messages;
    if (!isContextOverflow(error) || !Array.isArray(state) || request.runtime.signal?.aborted) throw error;
    const mayEndStructured = request.responseFormat !== undefined && request.responseFormat !== null;
    // The step compacted nothing itself: the retry compacts the state's history, after its log.
    const nothing: Prepared = {
      update: {},
      view: undefined,
      viewOnly: false,
      startWrite: () => undefined,
      returned: false,
      input: state as BaseMessage[],
      log: (request.state as { compactionLog?: unknown } | undefined)?.compactionLog,
      nested: false,
    };
    const { response, retry } = await retryAfterOverflow(compaction, request, handler, { prepared: nothing, sent: request.messages, mayEndStructured }, error);
    // A structured response: the agent writes the state from its own copy and drops hooks' updates.
    if (!(AIMessage.isInstance(response) || isCommand(response)) || Object.keys(retry.update).length === 0) return response;
    return new Command({ update: { ...((await retry.startWrite()) ?? retry.update) } });
  }
}
