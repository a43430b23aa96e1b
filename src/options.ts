import type { z } from "zod/v4";
import { InvalidOptionError } from "./errors.js";

/**
 * Validate options once, at construction. The first problem becomes an {@link InvalidOptionError}
 * naming the option by its dotted path.
 * @internal
 */
export function parseOptions<Schema extends z.ZodType>(component: string, schema: Schema, options: unknown): z.output<Schema> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  let option = issue.path.map(String).join(".");
  let problem = issue.message;
  if (issue.code === "unrecognized_keys") {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    option = [option, keys[0]].filter(Boolean).join(".");
    problem = "unknown option";
  }
  throw new InvalidOptionError(component, option || "(options)", problem);
}
