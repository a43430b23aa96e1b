import { CompactionError } from "../errors.js";

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
 * those of LangGraph's own stores.
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

/** LangGraph's namespace rules (as `validateNamespace` of @langchain/langgraph-checkpoint). @internal */
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
  }
  if (namespace[0] === "langgraph" && !options.allowReservedRoot) {
    throw new InvalidStoreNamespaceError(`Root label for namespace cannot be "langgraph". Got: ${namespace.join(",")}`);
  }
}
