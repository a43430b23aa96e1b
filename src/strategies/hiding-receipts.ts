import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import type { AssistantCall } from "../messages/assistant-calls.js";
import type { Supersession } from "../messages/supersession.js";
import { callArtifacts, callFiles, extractArtifacts, filesOf, messageArtifacts, type ArtifactIndex } from "../messages/artifact-index.js";
import { headOf } from "../text/code-points.js";

/**
 * Receipts of hidden tool results: a short, stable note after the placeholder of what the hidden
 * result showed (file paths and error lines), so the model knows what it saw without calling the
 * tool again.
 */

/** How many file paths a receipt lists at most, by default. */
export const DEFAULT_RECEIPT_FILES = 8;
/** How many error lines a receipt quotes at most, by default. */
export const DEFAULT_RECEIPT_ERRORS = 3;
/**
 * Longest file path or error line a receipt quotes, in UTF-16 code units (cut on a code-point
 * boundary): the artifact index's own line limit, so a receipt quotes a long error line exactly as a
 * later summary's index lists it.
 */
export const RECEIPT_LINE_MAX = 200;

/** What a receipt lists: at most `files` paths and `errors` error lines. */
export interface HidingReceiptOptions {
  /** File paths listed at most. @default 8 */
  files?: number;
  /** Error lines quoted at most (each cut to 200 code units). @default 3 */
  errors?: number;
}

/** The receipt limits in force; `undefined` when receipts are off. @internal */
export interface ReceiptLimits {
  readonly files: number;
  readonly errors: number;
}

/** @internal */
export const receiptsSchema = z.union([
  z.boolean(),
  z.object({ files: z.number().int().nonnegative().optional(), errors: z.number().int().nonnegative().optional() }).strict(),
]);

/** The limits of a `receipts` option (`true` and `undefined`: the defaults; `false`: no receipts). @internal */
export function receiptLimits(option: boolean | HidingReceiptOptions | undefined): ReceiptLimits | undefined {
  if (option === false) return undefined;
  const limits = option === true || option === undefined ? {} : option;
  const files = limits.files ?? DEFAULT_RECEIPT_FILES;
  const errors = limits.errors ?? DEFAULT_RECEIPT_ERRORS;
  return files === 0 && errors === 0 ? undefined : { files, errors };
}

/**
 * The receipt of one tool result: the files its call touched (from the call's arguments, read as
 * the artifact index reads them: path arguments and the files a shell command names) and the
 * result's last error lines, e.g. `(files: a.py, b/c.py; errors: Traceback (most recent call last): | TypeError: x)`. `""` when it
 * found nothing. Deterministic: the same call and result always give the same receipt.
 *
 * @param call the call the result answers, when known.
 * @param resultArtifacts the artifact index of the original result (a tool message, or a
 *   `tool_result` block: see `blockArtifacts`), extracted once by the caller, which keeps it in the
 *   hidden result's marker.
 */
export function hidingReceipt(call: AssistantCall | undefined, resultArtifacts: ArtifactIndex, limits: ReceiptLimits): string {
  const files = (limits.files > 0 ? (call === undefined ? filesOf(resultArtifacts) : callFiles(call, [resultArtifacts])) : [])
    .slice(0, limits.files)
    .map((path) => headOf(path, RECEIPT_LINE_MAX));
  // Quoted as they are (no escaping), so a receipt holds the very line a search for it would find.
  const errors = limits.errors > 0 ? resultArtifacts.errors.slice(-limits.errors).map((line) => headOf(line, RECEIPT_LINE_MAX)) : [];
  const parts: string[] = [];
  if (files.length > 0) parts.push(`files: ${files.join(", ")}`);
  if (errors.length > 0) parts.push(`errors: ${errors.join(" | ")}`);
  return parts.length === 0 ? "" : `(${parts.join("; ")})`;
}

/** The artifact index of a `tool_result` block: the block read as its own one-block human message. @internal */
export function blockArtifacts(block: Record<string, unknown>): ArtifactIndex {
  return extractArtifacts([new HumanMessage({ content: [block as never] })]);
}

/** The content of a hidden result: the placeholder, then its receipt when there is one. @internal */
export function hiddenContent(placeholder: string, receipt: string): string {
  return receipt === "" ? placeholder : `${placeholder} ${receipt}`;
}

/** Whether a content is the placeholder, with or without a receipt (a result hidden already). @internal */
export function isHiddenContent(content: unknown, placeholder: string): boolean {
  return typeof content === "string" && (content === placeholder || content.startsWith(`${placeholder} (`));
}

/**
 * The note that replaces a superseded result, in place of the placeholder: what superseded it and
 * the id of the call whose result has the newer content, e.g. `[superseded: file viewed again at
 * call call_12]`; with `namePaths` (receipts off, so no receipt names them), the view's files too:
 * `[superseded: file src/x.py viewed again at call call_12]`. @internal
 */
export function supersededNote(supersession: Supersession, namePaths: boolean): string {
  const what = namePaths && supersession.paths.length > 0 ? supersession.what.replace(/^(files?) /, `$1 ${supersession.paths.join(", ")} `) : supersession.what;
  return `[superseded: ${what} at call ${supersession.callId}]`;
}

/** A result's receipt, for the call it answers, and the artifacts its hidden copy's marker keeps. @internal */
export interface Receipt {
  /** The assistant message and the id of the call the receipt was made for. */
  readonly assistant: BaseMessage;
  readonly callId: string | undefined;
  readonly artifacts: ArtifactIndex | undefined;
  readonly markerArtifacts: ArtifactIndex | undefined;
  readonly receipt: string;
}

/**
 * The receipt of a tool message and the artifacts its marker keeps (with `hideToolInputs`, the
 * call's files too), made once per result and call when `made` keeps them: a result hidden again
 * (by another note, in another batch) is not read again. @internal
 */
export function receiptOf(
  result: BaseMessage,
  call: AssistantCall | undefined,
  assistant: BaseMessage,
  limits: ReceiptLimits | undefined,
  hideToolInputs: boolean,
  made: WeakMap<BaseMessage, Receipt> | undefined,
): Receipt {
  const earlier = limits === undefined ? undefined : made?.get(result);
  if (earlier !== undefined && earlier.assistant === assistant && earlier.callId === call?.id) return earlier;
  // With receipts, the original is read once: its artifacts make the receipt and stay in the
  // marker, where a later summary's artifact index merges them.
  // The shared empty index for a result that holds nothing (most): a receipt is kept for every
  // hidden result, and an empty index is not kept in its marker.
  const artifacts = limits === undefined ? undefined : messageArtifacts(result);
  // With hideToolInputs the call's arguments go too: its files stay in the marker's index.
  const markerArtifacts = artifacts && hideToolInputs && call ? callArtifacts(call, [artifacts]) : artifacts;
  const receipt: Receipt = { assistant, callId: call?.id, artifacts, markerArtifacts, receipt: artifacts === undefined ? "" : hidingReceipt(call, artifacts, limits!) };
  if (artifacts !== undefined) made?.set(result, receipt);
  return receipt;
}
