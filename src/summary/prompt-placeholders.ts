import { z } from "zod/v4";

/**
 * The placeholders a summary prompt takes the conversation in: `{history}` (this package's prompts)
 * and `{messages}` (LangChain's `summarizationMiddleware` prompts). Both are filled with the same
 * formatted conversation.
 */
export const HISTORY_PLACEHOLDERS: readonly string[] = Object.freeze(["history", "messages"]);

/** Whether a prompt has a placeholder the conversation goes into (`{history}` or `{messages}`). */
export function hasHistoryPlaceholder(prompt: string): boolean {
  return /\{(?:history|messages)\}/.test(prompt);
}

/**
 * A summary prompt option: a non-empty string with `{history}` or `{messages}`. A prompt without
 * either would reach the summary model without the conversation, and its answer would still replace
 * the history, so it is rejected. @internal
 */
export const summaryPromptSchema = z
  .string()
  .min(1)
  .refine(hasHistoryPlaceholder, {
    message: "expected a prompt with a {history} or {messages} placeholder",
    params: { reason: "without one the summary model would never see the conversation" },
  });

/** The values of both conversation placeholders. @internal */
export function historyValues(formatted: string): { history: string; messages: string } {
  return { history: formatted, messages: formatted };
}
