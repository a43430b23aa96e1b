// Reading a thread export: checking it is one, and turning its stored messages back into messages.
import { mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { InvalidHistoryError } from "../errors.js";
import { archivedCompactionSchema, compactionRecordSchema, storedMessageSchema } from "../langgraph/compaction-state.js";
import { THREAD_EXPORT_FORMAT, type ThreadExport } from "./inspection.js";

// The export is checked as strictly as the channels it was read from.
const threadExportSchema = z.object({
  format: z.literal(THREAD_EXPORT_FORMAT),
  threadId: z.string(),
  messages: z.array(storedMessageSchema),
  compactionLog: z.array(compactionRecordSchema),
  archives: z.array(archivedCompactionSchema),
});

/**
 * Check that `value` is a {@link ThreadExport} (e.g. a parsed `--json` file) and return it typed.
 *
 * @param source who is asking, for the error message (a file name, a function name).
 * @example
 * const thread = parseThreadExport(JSON.parse(await readFile("thread.json", "utf8")), "thread.json");
 * @throws {InvalidHistoryError} naming the first problem: not an object, another `format`, or the
 *   path of the first field that does not fit (e.g. `compactionLog.2.status`).
 */
export function parseThreadExport(value: unknown, source = "buildInspection"): ThreadExport {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidHistoryError(`${source}: not a thread export (expected a JSON object with "format": "${THREAD_EXPORT_FORMAT}", got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value})`);
  }
  const format = (value as { format?: unknown }).format;
  if (format !== THREAD_EXPORT_FORMAT) {
    throw new InvalidHistoryError(
      `${source}: not a thread export: "format" is ${format === undefined ? "missing" : JSON.stringify(format)}, expected "${THREAD_EXPORT_FORMAT}"`,
    );
  }
  const parsed = threadExportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidHistoryError(`${source}: invalid thread export: \`${issue.path.map(String).join(".") || "(root)"}\`: ${issue.message}`);
  }
  // The parsed copy drops unknown keys; the input is returned so messages keep every field.
  return value as ThreadExport;
}

/** Stored messages to messages, naming the one that cannot be read. */
export function toMessages(stored: readonly StoredMessage[], where: string): BaseMessage[] {
  return stored.map((message, position) => {
    try {
      return mapStoredMessagesToChatMessages([message])[0]!;
    } catch (error) {
      throw new InvalidHistoryError(`buildInspection: \`${where}.${position}\` is not a message: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
