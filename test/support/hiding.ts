import type { ToolResultHidingOptions } from "../../src/index.js";

/**
 * `toolResultHiding` options whose trigger fires at every run (any history of one message or more)
 * and that hide whatever that frees, for tests that check what a firing hides rather than when it fires.
 */
export const EVERY_RUN = { trigger: { messages: 1 }, clearAtLeast: 0 } as const satisfies ToolResultHidingOptions;
