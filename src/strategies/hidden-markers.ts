import type { BaseMessage } from "@langchain/core/messages";
import { compactionMarkerOf } from "../types.js";

// The markers of a hidden tool result: this package's and LangChain's context editing's.

/**
 * The key of LangChain's context-editing marker in `response_metadata`: LangChain's
 * `ClearToolUsesEdit` writes `{ cleared: true, strategy: "clear_tool_uses" }` there on a cleared tool
 * message, and `{ cleared_tool_inputs: [ids] }` on an assistant message whose call arguments it emptied.
 */
export const CONTEXT_EDITING_METADATA_KEY = "context_editing";

/** LangChain's marker of a cleared tool result, as its `ClearToolUsesEdit` writes it. */
export const LANGCHAIN_CLEARED_MARKER = Object.freeze({ cleared: true, strategy: "clear_tool_uses" });

/** Whether LangChain's context editing (or this package) marked a message as a cleared tool result. */
export function isLangChainCleared(message: BaseMessage): boolean {
  const entry = (message.response_metadata as Record<string, unknown> | undefined)?.[CONTEXT_EDITING_METADATA_KEY];
  return typeof entry === "object" && entry !== null && (entry as { cleared?: unknown }).cleared === true;
}

/** Whether a result is hidden already: by this package (its marker) or cleared by LangChain's context editing. */
export function isHiddenResult(message: BaseMessage): boolean {
  return compactionMarkerOf(message)?.hidden === true || isLangChainCleared(message);
}

/** The call ids whose arguments LangChain's context editing (or this package) emptied in an assistant message: its `cleared_tool_inputs`. */
export function langChainClearedInputs(message: BaseMessage): readonly string[] {
  const entry = (message.response_metadata as Record<string, unknown> | undefined)?.[CONTEXT_EDITING_METADATA_KEY] as { cleared_tool_inputs?: string[] } | undefined;
  return entry?.cleared_tool_inputs ?? [];
}
