import type { BaseMessage } from "@langchain/core/messages";

/** Fields a LangChain message class may carry; every one present on the source is carried over. */
const MESSAGE_FIELDS = [
  "content",
  "id",
  "name",
  "additional_kwargs",
  "response_metadata",
  "tool_calls",
  "invalid_tool_calls",
  "usage_metadata",
  "tool_call_id",
  "status",
  "artifact",
  "metadata",
  "role",
] as const;

/** Fields whose values are plain data: copied deeply (overrides too), so the clone shares none of them. */
const DATA_FIELDS = new Set<string>([
  "content",
  "additional_kwargs",
  "response_metadata",
  "tool_calls",
  "invalid_tool_calls",
  "metadata",
]);

type MessageConstructor = new (fields: Record<string, unknown>) => BaseMessage;

function isEmptyContainer(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _key in value) return false;
  return true;
}

/** Nesting deeper than this is left to `structuredClone` (which also copies cycles). */
const PLAIN_COPY_DEPTH = 32;
/** Thrown inside {@link copyPlain} when a value is not plain data. */
const NOT_PLAIN = Symbol("not plain data");

/**
 * A deep copy of JSON-like data (primitives, arrays, objects whose prototype is `Object.prototype`
 * or null), what messages carry, several times cheaper than `structuredClone` on small values; it
 * throws {@link NOT_PLAIN} on anything else (a Date, a Map, a class instance, a cycle or deep nesting).
 */
function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
    return value;
  }
  if (depth > PLAIN_COPY_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_PLAIN;
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyPlain(value[index], depth + 1);
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyPlain((value as Record<string, unknown>)[key], depth + 1);
  return copy;
}

function copyData(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  // Most messages carry empty kwargs and metadata: no need for a structured clone.
  if (isEmptyContainer(value)) return Array.isArray(value) ? [] : {};
  try {
    return copyPlain(value, 0);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
  }
  try {
    return structuredClone(value);
  } catch {
    // Not structured-cloneable (a class instance with methods): a shallow copy still avoids aliasing
    // the container the caller may edit.
    return Array.isArray(value) ? [...value] : { ...(value as object) };
  }
}

/**
 * Copy a message with every field it carries (id, name, status, artifact, additional_kwargs,
 * response_metadata, usage_metadata, tool calls...), optionally overriding some.
 *
 * The copy is built through the message's own constructor, so its serialized form (`toJSON`, what a
 * checkpointer stores) matches its fields. Plain-data fields are deep-copied. Two are kept by
 * reference: `artifact`, which may hold objects that cannot be cloned and is never sent to a model,
 * and `usage_metadata`, the provider's read-only record of a call, whose identity the token counter
 * uses to keep a rewritten message's calibration.
 *
 * @example
 * const hidden = cloneMessage(toolMessage, { content: "[hidden]" });
 */
export function cloneMessage<T extends BaseMessage>(message: T, overrides: Record<string, unknown> = {}): T {
  const source = message as unknown as Record<string, unknown>;
  const lcKwargs = (source["lc_kwargs"] ?? {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...lcKwargs };
  for (const field of MESSAGE_FIELDS) {
    if (field in overrides) continue;
    const value = source[field];
    if (value === undefined) continue;
    fields[field] = DATA_FIELDS.has(field) ? copyData(value) : value;
  }
  for (const [field, value] of Object.entries(overrides)) fields[field] = DATA_FIELDS.has(field) ? copyData(value) : value;
  const Constructor = message.constructor as MessageConstructor;
  return new Constructor(fields) as T;
}
