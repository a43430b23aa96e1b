import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { cloneMessage } from "./clone-message.js";
import { isToolResultBlock } from "./tool-result-blocks.js";

/**
 * How `repairToolPairing` splits a human message that carries `tool_result` blocks.
 * @internal
 */
export interface CarrierPlan {
  /** Positions of the `tool_result` blocks that stay where they are (they answer the calls just before). */
  readonly results: readonly number[];
  /** Positions of its other content (text, images...). */
  readonly other: readonly number[];
  /** Positions of the `tool_result` blocks that move, by the position of the assistant message they answer. */
  readonly moves: ReadonlyMap<number, readonly number[]>;
  /** Positions of the `tool_result` blocks dropped (orphans, second answers). */
  readonly dropped: ReadonlySet<number>;
}

/** Block problems of one human message: dropped blocks, and misplaced ones by the assistant message they answer. @internal */
export interface CarrierProblems {
  readonly drops: Set<number>;
  readonly moves: Map<number, number[]>;
}

/** Sort a human message's content positions into results that stay, moving results, dropped results and other content. @internal */
export function planCarrier(message: BaseMessage, problems: CarrierProblems | undefined): CarrierPlan {
  const results: number[] = [];
  const other: number[] = [];
  const misplaced = new Set<number>();
  for (const positions of problems?.moves.values() ?? []) for (const position of positions) misplaced.add(position);
  (message.content as unknown[]).forEach((block, position) => {
    if (!isToolResultBlock(block)) other.push(position);
    else if (!problems?.drops.has(position) && !misplaced.has(position)) results.push(position);
  });
  return { results, other, moves: problems?.moves ?? new Map(), dropped: problems?.drops ?? new Set() };
}

/**
 * The content blocks at `positions` (ascending), each `tool_result` block with the id the repair
 * gives it (`renamed`, by block position). Blocks are copied only when renamed.
 * @internal
 */
export function carrierContent(message: BaseMessage, positions: readonly number[], renamed: (position: number) => string | undefined): unknown[] {
  const content = message.content as unknown[];
  return positions.map((position) => {
    const block = content[position];
    const id = renamed(position);
    return id === undefined ? block : { ...(block as Record<string, unknown>), tool_use_id: id };
  });
}

/**
 * The part of a human message made of the blocks at `positions`: the message itself when that is
 * all of it, unchanged; else a copy (same id and fields) with only those blocks.
 * @internal
 */
export function carrierPart(message: BaseMessage, positions: readonly number[], renamed: (position: number) => string | undefined): BaseMessage {
  const content = carrierContent(message, positions, renamed);
  const original = message.content as unknown[];
  if (content.length === original.length && content.every((block, position) => block === original[position])) return message;
  return cloneMessage(message, { content });
}

/** A new human message (no id) with the blocks at `positions` of `message`, e.g. tool results moved to their call. @internal */
export function carrierExtract(message: BaseMessage, positions: readonly number[], renamed: (position: number) => string | undefined): HumanMessage {
  return new HumanMessage({ content: carrierContent(message, positions, renamed) as HumanMessage["content"] });
}
