/**
 * A scripted chat model that replays a recorded session: each call is answered with the recorded
 * assistant message that follows the last message of its input (tool calls with the recorded ids).
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { cloneMessage } from "../../src/index.js";
import type { ReplaySession } from "./replay-session.js";

/**
 * A `BaseChatModel` whose replies are a recording's. It is stateless: the reply depends only on the
 * input's last message id, so a new process or another worker resuming the thread gets the same
 * reply a single process would have got. Each reply is a fresh copy of the recorded message.
 *
 * It stands in for a hosted model (the only mock the project allows); everything around it (the
 * graph, the tool node, the checkpointer) is real.
 *
 * @example
 * const model = new ReplayChatModel(new ReplaySession(session));
 * const reply = await model.invoke(session.messages.slice(0, 2)); // the recorded first reply
 */
export class ReplayChatModel extends BaseChatModel {
  readonly session: ReplaySession;

  constructor(session: ReplaySession, params: BaseChatModelParams = {}) {
    super(params);
    this.session = session;
  }

  _llmType(): string {
    return "replay";
  }

  /**
   * The replay already knows which tools it calls: binding is accepted (so the same graph code
   * works with a real model) and changes nothing.
   */
  override bindTools(_tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    return this as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk>;
  }

  /**
   * @throws {Error} when the input's last message is not in the recording (see
   *   {@link ReplaySession.replyAfter}).
   */
  async _generate(messages: BaseMessage[], _options: this["ParsedCallOptions"], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const reply = cloneMessage(this.session.replyAfter(messages.at(-1)));
    const text = typeof reply.content === "string" ? reply.content : "";
    return { generations: [{ message: reply, text }] };
  }
}
