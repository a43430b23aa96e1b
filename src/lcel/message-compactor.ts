import { z } from "zod/v4";
import type { Compactor } from "../strategies/compaction-strategy.js";


/** @internal */
export const messageCompactorSchema = z.custom<Compactor>(
  (value) => typeof value === "object" && value !== null && typeof (value as Compactor).compact === "function",
  { message: "expected a strategy (an object with a compact() method)" },
);

/** @internal */
export const callbackSchema = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
  message: "expected a function",
});
