/**
 * The strict wire validator: what the real `ChatOpenAI` and `ChatAnthropic` would send for a
 * history, converted by their own code, checked against each provider's rules.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { anthropicWireProblems } from "./anthropic.js";
import { openaiWireProblems } from "./openai.js";
import type { Provider, WireProblem } from "./problems.js";

export { anthropicWireProblems, type AnthropicCheckOptions } from "./anthropic.js";
export { convertForAnthropic, type AnthropicPayload, type AnthropicWireMessage } from "./anthropic-converter.js";
export { DEFAULT_OPENAI_MODEL, openaiWire, openaiWireProblems, type OpenAIParam, type OpenAIWire } from "./openai.js";
export { formatProblems, loneSurrogatePaths, type Provider, type WireProblem } from "./problems.js";

export const PROVIDERS: readonly Provider[] = ["openai", "anthropic"];

/** The problems of one provider. */
export function providerProblems(provider: Provider, messages: readonly BaseMessage[]): WireProblem[] {
  return provider === "openai" ? openaiWireProblems(messages) : anthropicWireProblems(messages);
}

/** The problems of both providers, OpenAI's first. */
export function wireProblems(messages: readonly BaseMessage[]): WireProblem[] {
  return [...openaiWireProblems(messages), ...anthropicWireProblems(messages)];
}
