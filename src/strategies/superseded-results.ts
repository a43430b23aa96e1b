import { z } from "zod/v4";
import { SupersessionReader, type ReadCallHook, type Supersession } from "../messages/supersession.js";
import type { ToolCallReading, ToolCallRef } from "../messages/tool-call-reading.js";

export type { Supersession, ToolCallReading, ToolCallRef };

/**
 * Superseded-result hiding: which results a firing of `toolResultHiding` hides first because a later
 * call superseded them, and the note that says so.
 */

/** How a hiding finds superseded results (see `ToolResultHidingOptions.supersession`). */
export interface SupersessionOptions {
  /**
   * Read a call your own way: what it shows and changes (see {@link ToolCallReading}); `undefined`
   * falls back to the built-in reading (shell commands, file editors, read/write/edit tools).
   * @example
   * // A status tool: the newest answer supersedes the older ones.
   * readCall: (call) => (call.name === "get_order_status" ? { rerun: true } : undefined)
   */
  readCall?: (call: ToolCallRef) => ToolCallReading | undefined;
}

/** @internal */
export const supersessionSchema = z.union([z.boolean(), z.object({ readCall: z.custom<ReadCallHook>((value) => typeof value === "function", "expected a function").optional() }).strict()]);

/** The reader of a `supersession` option; `undefined` when it is off. @internal */
export function supersessionReader(option: boolean | SupersessionOptions | undefined): SupersessionReader | undefined {
  if (option === false) return undefined;
  return new SupersessionReader(typeof option === "object" ? option.readCall : undefined);
}
