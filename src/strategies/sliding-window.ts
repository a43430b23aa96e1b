import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { safeCutPoints, userTurnStarts } from "../messages/tool-call-groups.js";
import { parseOptions } from "../options.js";
import type { RemovedMessage } from "../types.js";
import {
  CompactionStrategy,
  baseOptionsShape,
  type BaseStrategyOptions,
  type PreparedHistory,
  type StrategyOutcome,
} from "./compaction-strategy.js";

export interface SlidingWindowOptions extends BaseStrategyOptions {
  /** How many of the newest user turns to keep. A turn starts at a user message. */
  keepTurns: number;
}

const optionsSchema = z
  .object({
    ...baseOptionsShape,
    keepTurns: z.number().int().positive(),
  })
  .strict();

/**
 * Sliding window: keep the system messages and the newest `keepTurns` user turns (a turn runs from
 * a user message to the next one, tool calls and results included). A human message that carries
 * `tool_result` blocks (Anthropic's form of tool results) answers the assistant message before it:
 * it starts no turn, so the window never opens with it. A history with no more turns than that is
 * left alone.
 * @see slidingWindow
 */
export class SlidingWindow extends CompactionStrategy {
  readonly strategyName = "slidingWindow";
  readonly keepTurns: number;

  constructor(options: SlidingWindowOptions) {
    const parsed = parseOptions("slidingWindow", optionsSchema, options);
    super(parsed);
    this.keepTurns = parsed.keepTurns;
  }

  protected async run({ messages, index }: PreparedHistory): Promise<StrategyOutcome> {
    const starts = userTurnStarts(messages, safeCutPoints(messages, index));
    if (starts.length <= this.keepTurns) {
      return { status: "noop", reason: `${starts.length} user turn(s), within keepTurns ${this.keepTurns}` };
    }
    const cut = starts[starts.length - this.keepTurns]!;
    const output: BaseMessage[] = [];
    const removed: RemovedMessage[] = [];
    messages.forEach((message, position) => {
      if (position >= cut || message.type === "system") output.push(message);
      else removed.push({ index: position, message });
    });
    return { status: "truncated", messages: output, removed };
  }
}

/**
 * Keep the system messages and the newest `keepTurns` user turns.
 *
 * @example
 * const window = slidingWindow({ keepTurns: 4 });
 * const chain = window.pipe(model);
 * @throws {InvalidOptionError} for an invalid option.
 */
export function slidingWindow(options: SlidingWindowOptions): SlidingWindow {
  return new SlidingWindow(options);
}
