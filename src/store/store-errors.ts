import { CompactionError } from "../errors.js";
import { hasLoneSurrogate } from "../text/code-points.js";

/**
 * A store operation this store does not implement: `SqliteStore` has no vector index, so a search
 * with a `query` (semantic search) and a put that asks for fields to be indexed throw it.
 *
 * @example
 * try {
 *   await store.search(["docs"], { query: "refund policy" });
 * } catch (error) {
 *   if (UnsupportedStoreOperationError.isInstance(error)) console.warn(error.operation); // "search with a query"
 * }
 */
export class UnsupportedStoreOperationError extends CompactionError {
  /** What was asked, e.g. `"search with a query"`. */
  readonly operation: string;

  constructor(operation: string, message: string) {
    super(message);
    this.name = "UnsupportedStoreOperationError";
    this.operation = operation;
  }

  static override isInstance(error: unknown): error is UnsupportedStoreOperationError {
    return CompactionError.isInstance(error) && error.name === "UnsupportedStoreOperationError";
  }
}

/**
 * A namespace a LangGraph store rejects: empty (for a put, get or delete), with an empty or non-string
 * label, a label holding `.`, `:` or NUL, or a first label `"langgraph"` (reserved). The messages are
 * those of LangGraph's own stores. `SqliteStore` also rejects a label holding a lone surrogate (half
 * of a UTF-16 pair), which SQLite's text cannot hold.
 */
export class InvalidStoreNamespaceError extends CompactionError {
  constructor(message: string) {
    super(message);
    this.name = "InvalidStoreNamespaceError";
  }

  static override isInstance(error: unknown): error is InvalidStoreNamespaceError {
    return CompactionError.isInstance(error) && error.name === "InvalidStoreNamespaceError";
  }
}

/**
 * An argument of a store operation other than its namespace that the store cannot take: a key that is
 * not a string or holds a lone surrogate (SQLite's text cannot hold it: the item would come back under
 * another key), a value that is not JSON (undefined, a function, a BigInt, a cycle), or a `limit`,
 * `offset` or `maxDepth` that is not a whole number in range (or `Infinity`). The batch it is in
 * changes nothing.
 *
 * @example
 * try {
 *   await store.search(["docs"], { limit: 2.5 });
 * } catch (error) {
 *   if (InvalidStoreArgumentError.isInstance(error)) console.warn(error.argument); // "limit"
 * }
 */
export class InvalidStoreArgumentError extends CompactionError {
  /** The argument: `"key"`, `"value"`, `"limit"`, `"offset"` or `"maxDepth"`. */
  readonly argument: string;

  constructor(argument: string, problem: string) {
    super(`SqliteStore: invalid ${argument}: ${problem}`);
    this.name = "InvalidStoreArgumentError";
    this.argument = argument;
  }

  static override isInstance(error: unknown): error is InvalidStoreArgumentError {
    return CompactionError.isInstance(error) && error.name === "InvalidStoreArgumentError";
  }
}

/** LangGraph's namespace rules (as `validateNamespace` of @langchain/langgraph-checkpoint), and no lone surrogate. @internal */
export function validateStoreNamespace(namespace: readonly unknown[], options: { allowEmpty?: boolean; allowReservedRoot?: boolean } = {}): void {
  if (!Array.isArray(namespace)) throw new InvalidStoreNamespaceError(`Namespace must be an array of labels, got ${typeof namespace}.`);
  if (namespace.length === 0) {
    if (options.allowEmpty) return;
    throw new InvalidStoreNamespaceError("Namespace cannot be empty.");
  }
  for (const label of namespace) {
    if (typeof label !== "string") {
      throw new InvalidStoreNamespaceError(`Invalid namespace label '${String(label)}' found in ${namespace.join(",")}. Namespace labels must be strings, but got ${typeof label}.`);
    }
    if (label === "") throw new InvalidStoreNamespaceError(`Namespace labels cannot be empty strings. Got ${label} in ${namespace.join(",")}`);
    if (label.includes(".")) throw new InvalidStoreNamespaceError(`Invalid namespace label '${label}' found in ${namespace.join(",")}. Namespace labels cannot contain periods ('.').`);
    if (label.includes(":")) throw new InvalidStoreNamespaceError(`Invalid namespace label '${label}'. Namespace labels cannot contain colons (':').`);
    if (label.includes("\0")) throw new InvalidStoreNamespaceError("Namespace labels cannot contain NUL bytes.");
    if (hasLoneSurrogate(label)) throw new InvalidStoreNamespaceError(`Invalid namespace label ${JSON.stringify(label)}. Namespace labels cannot contain lone surrogates (half of a UTF-16 pair).`);
  }
  if (namespace[0] === "langgraph" && !options.allowReservedRoot) {
    throw new InvalidStoreNamespaceError(`Root label for namespace cannot be "langgraph". Got: ${namespace.join(",")}`);
  }
}

/** A key SqliteStore can keep and find again: a string without lone surrogates. @internal */
export function validateStoreKey(key: unknown): void {
  if (typeof key !== "string") throw new InvalidStoreArgumentError("key", `keys must be strings, got ${typeof key}`);
  if (hasLoneSurrogate(key)) throw new InvalidStoreArgumentError("key", `${JSON.stringify(key)} holds a lone surrogate (half of a UTF-16 pair), which SQLite's text cannot hold`);
}

/** `value` as the JSON text SqliteStore keeps. @internal */
export function storeValueJson(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidStoreArgumentError("value", `it cannot be written as JSON (${(error as Error).message})`);
  }
  if (json === undefined) throw new InvalidStoreArgumentError("value", `it cannot be written as JSON (got ${typeof value}; delete an item with store.delete or a null value)`);
  return json;
}

/** A `limit`, `offset` or `maxDepth`: undefined, a whole number from `min`, or `Infinity` (no bound). @internal */
export function validateStoreCount(argument: string, value: unknown, min: number): void {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new InvalidStoreArgumentError(argument, `${typeof value === "number" ? String(value) : typeof value === "string" ? JSON.stringify(value) : `a ${typeof value}`} is not ${min === 0 ? "a non-negative" : "a positive"} integer`);
  }
}
