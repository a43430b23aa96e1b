import { ToolMessage, getBufferString, type BaseMessage } from "@langchain/core/messages";
import { isToolResultMessage } from "../messages/message-types.js";
import { fillPrompt } from "../summary/data-fence.js";
import { FullSummary } from "../summary/full-summary.js";
import { historyValues } from "../summary/prompt-placeholders.js";
import type { SummaryChatModel } from "../summary/summary-model.js";
import type { SummaryInput } from "../summary/summary-strategy.js";
import { compactionMarkerOf, type CompactionContext } from "../types.js";

/**
 * `fullSummary` as LangChain's `summarizationMiddleware` asks for its summary: the part being replaced
 * is written in LangChain's `getBufferString` format (`Human: ...`, `AI: ...[tool calls]`,
 * `Tool: ...`) into the prompt's `{messages}` (or `{history}`), the filled prompt is sent to the
 * model as a string, and the answer is the summary as it is (no `<summary>` tags are looked for).
 * Everything else is `fullSummary`'s: the cut, the trims (`summaryInputTokens`, the tool-output
 * budget, the note that stands for left-out messages), the artifact index, and a failure that
 * changes nothing. @internal
 */
export class LangChainSummary extends FullSummary {
  protected override readonly promptAsText = true;

  protected override async writeWithModel(model: SummaryChatModel, input: SummaryInput, context: CompactionContext): Promise<string> {
    const before = input.leftOut?.before ?? 0;
    const shown: BaseMessage[] = [];
    input.messages.forEach((message, position) => {
      // Left-out older messages are replaced by the note; an earlier summary among them is always sent.
      if (position < before && compactionMarkerOf(message)?.summary !== true) return;
      const cut = input.textOverrides.get(position);
      shown.push(cut !== undefined && isToolResultMessage(message) ? new ToolMessage({ content: cut, tool_call_id: message.tool_call_id, name: message.name }) : message);
    });
    const formatted = getBufferString(shown);
    const text = input.leftOut ? `${input.leftOut.note}\n\n${formatted}` : formatted;
    // Fenced: no text in the conversation can close the prompt's <messages> block.
    return this.ask(model, fillPrompt(this.prompt, historyValues(text)), context);
  }
}
