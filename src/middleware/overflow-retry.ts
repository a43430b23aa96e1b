import type { BaseMessage } from "@langchain/core/messages";
import { v4 as uuidv4 } from "@langchain/core/utils/uuid";
import { describeError, failedCompactionRecord, strategyNameOf, type CompactionRecord } from "../compaction-record.js";
import { CompactionOverflowError } from "../errors.js";
import { lastIdOf } from "../langgraph/compaction-update.js";
import { withOverwrittenSummaries } from "../langgraph/live-summary.js";
import type { InModelCompaction, ModelCallRequest } from "./in-model-call.js";
import { modelMessages, prepare, summariesOf, type Prepared } from "./in-model-prepare.js";

/**
 * Whether a model call failed because the prompt is too long: LangChain's `ContextOverflowError`
 * (raised by `ChatOpenAI` and `ChatAnthropic`), read by name and error code so that any copy of
 * `@langchain/core` is recognised. @internal
 */
export function isContextOverflow(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, lc_error_code: code } = error as { name?: unknown; lc_error_code?: unknown };
  return name === "ContextOverflowError" || code === "CONTEXT_OVERFLOW";
}

/** The margin under the provider's own share, for counts that are not the provider's. */
const SHRINK_MARGIN = 0.9;

/**
 * The share of the request the provider takes, from its overflow message (OpenAI: "maximum context
 * length is M tokens. However, your messages resulted in N tokens"; Anthropic: "prompt is too long:
 * N tokens > M maximum"), less a margin; undefined when it gives no figures. @internal
 */
export function overflowShrinkOf(error: unknown): number | undefined {
  const text = `${(error as { message?: unknown })?.message ?? ""}`;
  const openAI = /maximum context length is (\d+) tokens[\s\S]*?resulted in (\d+) tokens/.exec(text);
  const anthropic = /prompt is too long: (\d+) tokens > (\d+) maximum/.exec(text);
  const [maximum, size] = openAI ? [Number(openAI[1]), Number(openAI[2])] : anthropic ? [Number(anthropic[2]), Number(anthropic[1])] : [NaN, NaN];
  return size > maximum && maximum > 0 ? (maximum / size) * SHRINK_MARGIN : undefined;
}

/** What a successful retry gave: the model's answer and the compaction made for it. @internal */
export interface OverflowRetry<Response> {
  readonly response: Response;
  readonly retry: Prepared;
}

/**
 * After the provider rejected the call as too long: compacts the history the model was given again,
 * forced and with `overflow` set (autoCompaction: its summary, then its hard limit), and calls the
 * model once more on the result. The caller writes the first compaction's update, then this one's.
 * @throws {CompactionOverflowError} with `error` as its cause and a `failed` record, when the
 *   compaction changes nothing (or fails), or when the retry overflows again. Any other error of the
 *   retry is thrown as it is.
 * @internal
 */
export async function retryAfterOverflow<Request extends ModelCallRequest, Response>(
  compaction: InModelCompaction,
  request: Request,
  handler: (request: Request) => Response | Promise<Response>,
  first: { readonly prepared: Prepared; readonly sent: unknown; readonly mayEndStructured: boolean },
  error: unknown,
): Promise<OverflowRetry<Response>> {
  const started = performance.now();
  const { prepared } = first;
  const base = prepared.view ?? prepared.input;
  const settle = async (...writes: (Prepared | undefined)[]) => {
    // The call fails either way; it still ends after the writes started, as every compacting step does.
    for (const write of writes) await write?.startWrite(false)?.catch(() => undefined);
  };
  const surface = (reason: string, retried: boolean) =>
    new CompactionOverflowError(`${compaction.component}: the provider reported a context overflow and ${reason}`, {
      cause: error,
      retried,
      record: failedRecord(compaction, base, `context overflow (${describeError(error)}): ${reason}`, performance.now() - started),
    });
  let retry: Prepared;
  try {
    retry = await prepare(compaction, request, base, prepared.update.compactionLog ?? prepared.log, { shrink: overflowShrinkOf(error) }, prepared.update.compactionSummary ?? summariesOf(request));
  } catch (failure) {
    await settle(prepared);
    throw surface(`the compaction after it failed: ${describeError(failure)}`, false);
  }
  if (retry.view === undefined) {
    await settle(prepared, retry);
    const said = retry.update.compactionLog?.find((record) => record.status === "failed")?.reason;
    throw surface(`compaction could not shrink the history${said ? ` (${said})` : ""}`, false);
  }
  if (!first.mayEndStructured) retry.startWrite();
  const chosen = request.messages === prepared.input ? retry.view : modelMessages(first.sent, base, retry.view, retry.viewOnly ? undefined : retry.update.messages);
  // A summary the app overwrote still goes to the model, as in the first call.
  const summaries = retry.update.compactionSummary ?? prepared.update.compactionSummary ?? summariesOf(request);
  const messages = Array.isArray(chosen) ? withOverwrittenSummaries(chosen as BaseMessage[], summaries) : chosen;
  try {
    return { response: await handler({ ...request, messages }), retry };
  } catch (second) {
    await settle(prepared, retry);
    if (isContextOverflow(second)) throw surface(`the one retry, after compacting, overflowed again (${describeError(second)})`, true);
    throw second;
  }
}

function failedRecord({ compactor }: InModelCompaction, messages: readonly { id?: string | undefined }[], reason: string, durationMs: number): CompactionRecord {
  return {
    ...failedCompactionRecord(strategyNameOf(compactor), messages.length, reason, { id: uuidv4(), at: new Date(), durationMs }),
    archive: "none",
    lastMessageId: lastIdOf(messages as never),
  };
}
