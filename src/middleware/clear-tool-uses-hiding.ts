import type { BaseMessage } from "@langchain/core/messages";
import type { HidingPass } from "../strategies/hiding-pass.js";
import { ToolResultHiding } from "../strategies/tool-result-hiding.js";
import type { ToolResultHidingOptions } from "../strategies/tool-result-hiding-options.js";
import type { LangChainTokenCounter } from "./langchain-token-counter.js";

/**
 * The hiding strategy under `ClearToolUsesEdit`: `clearAtLeast` is measured as LangChain's
 * `ClearToolUsesEdit` measures it, the function's count of the whole history before the firing
 * minus its count of the history as edited so far. One whole-history count per kept result the
 * firing reaches; none when `clearAtLeast` is 0. @internal
 */
export class LangChainClearHiding extends ToolResultHiding {
  readonly #countTokens: LangChainTokenCounter;

  constructor(options: ToolResultHidingOptions, countTokens: LangChainTokenCounter) {
    super(options);
    this.#countTokens = countTokens;
  }

  protected override async freedEnough(pass: HidingPass, messages: readonly BaseMessage[], total: number): Promise<boolean> {
    if (this.clearAtLeast === 0) return true;
    const edited = messages.map((message, position) => pass.replacements.get(position) ?? message);
    return Math.max(0, total - (await this.#countTokens(edited))) >= this.clearAtLeast;
  }
}
