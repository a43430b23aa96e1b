import { BaseStore, type Item, type Operation, type OperationResults } from "@langchain/langgraph";

type SearchItem = Item & { score?: number };
import { invalidOption } from "../option-errors.js";

/** An item as `@langchain/langgraph-sdk`'s store client returns it (dates as ISO strings). */
export interface SdkStoreItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  score?: number;
}

/**
 * The part of `@langchain/langgraph-sdk`'s `client.store` (`StoreClient`) that {@link sdkStore} uses:
 * the store of a LangGraph API server (`langgraph dev`, LangGraph Platform) over HTTP. Declared
 * here so this package does not depend on the SDK; an SDK `Client`'s `store` fits it.
 */
export interface SdkStoreClient {
  getItem(namespace: string[], key: string): Promise<SdkStoreItem | null>;
  putItem(namespace: string[], key: string, value: Record<string, unknown>, options?: { index?: false | string[] | null }): Promise<void>;
  deleteItem(namespace: string[], key: string): Promise<void>;
  searchItems(
    namespacePrefix: string[],
    options?: { filter?: Record<string, unknown>; limit?: number; offset?: number; query?: string },
  ): Promise<{ items: SdkStoreItem[] }>;
  listNamespaces(options?: { prefix?: string[]; suffix?: string[]; maxDepth?: number; limit?: number; offset?: number }): Promise<{ namespaces: string[][] }>;
}

/** An `@langchain/langgraph-sdk` `Client`, as far as its store goes. */
export interface SdkClientWithStore {
  store: SdkStoreClient;
}

const STORE_METHODS = ["getItem", "putItem", "deleteItem", "searchItems", "listNamespaces"] as const;

function isStoreClient(value: unknown): value is SdkStoreClient {
  return typeof value === "object" && value !== null && STORE_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === "function");
}

/** True for an SDK `Client` or its `client.store`. @internal */
export function isSdkStoreSource(value: unknown): value is SdkClientWithStore | SdkStoreClient {
  return isStoreClient(value) || (typeof value === "object" && value !== null && isStoreClient((value as { store?: unknown }).store));
}

function toItem(item: SdkStoreItem): SearchItem {
  const converted: SearchItem = {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
  if (item.score !== undefined && item.score !== null) converted.score = item.score;
  return converted;
}

/**
 * A LangGraph `BaseStore` over the store of a LangGraph API server, read and written through
 * `@langchain/langgraph-sdk`: what {@link sdkStore} returns. Every operation is one HTTP request,
 * run in order; `get` of a missing item gives `null`. Namespaces are checked by `BaseStore` first,
 * then by the server (whose labels cannot contain `.`).
 */
export class SdkStore extends BaseStore {
  readonly #client: SdkStoreClient;

  /** @param client an SDK `client.store`; see {@link sdkStore}, which also takes the `Client`. */
  constructor(client: SdkStoreClient) {
    super();
    this.#client = client;
  }

  /**
   * Run `operations` one after the other, each as one request to the server (`putItem` with
   * `value: null` deletes); results in the order of the operations, as `BaseStore.batch` specifies.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const operation of operations) results.push(await this.#run(operation));
    return results as OperationResults<Op>;
  }

  async #run(operation: Operation): Promise<unknown> {
    const client = this.#client;
    if ("namespacePrefix" in operation) {
      const { namespacePrefix, filter, limit, offset, query } = operation;
      const options = { ...(filter ? { filter } : {}), ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}), ...(query !== undefined ? { query } : {}) };
      return (await client.searchItems(namespacePrefix, options)).items.map(toItem);
    }
    if ("value" in operation) {
      if (operation.value === null) return void (await client.deleteItem(operation.namespace, operation.key));
      return void (await client.putItem(operation.namespace, operation.key, operation.value, operation.index === undefined ? undefined : { index: operation.index }));
    }
    if ("key" in operation) {
      const item = await client.getItem(operation.namespace, operation.key);
      return item ? (toItem(item) as Item) : null;
    }
    const prefix = operation.matchConditions?.find((condition) => condition.matchType === "prefix")?.path;
    const suffix = operation.matchConditions?.find((condition) => condition.matchType === "suffix")?.path;
    const { namespaces } = await client.listNamespaces({
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
      ...(operation.maxDepth !== undefined ? { maxDepth: operation.maxDepth } : {}),
      limit: operation.limit,
      offset: operation.offset,
    });
    return namespaces;
  }
}

/**
 * The store of a LangGraph API server (`langgraph dev`, LangGraph Platform) as a LangGraph
 * `BaseStore`, from an `@langchain/langgraph-sdk` `Client` (or its `client.store`): the full
 * interface (`get`, `put`, `delete`, `search`, `listNamespaces`, `batch`), so `restoreHistory` can
 * read the compaction archive a graph served there wrote in the server's store. The SDK is not a
 * dependency of this package: bring your own `Client`.
 *
 * @example
 * import { Client } from "@langchain/langgraph-sdk";
 * const client = new Client({ apiUrl: "http://127.0.0.1:2024" });
 * const { values } = await client.threads.getState<RestorableState>(threadId);
 * const history = await restoreHistory(values, { store: sdkStore(client), threadId });
 * @throws {InvalidOptionError} when `client` has no store client (`getItem`, `putItem`,
 *   `deleteItem`, `searchItems`, `listNamespaces`).
 */
export function sdkStore(client: SdkClientWithStore | SdkStoreClient): SdkStore {
  if (isStoreClient(client)) return new SdkStore(client);
  if (typeof client === "object" && client !== null && isStoreClient(client.store)) return new SdkStore(client.store);
  throw invalidOption("sdkStore", "client", client, "a @langchain/langgraph-sdk Client or its client.store");
}

/**
 * The store `restoreHistory` reads: a `BaseStore` as it is, an SDK `Client` or `client.store` wrapped
 * by {@link sdkStore}, `undefined` for none. @internal
 * @throws {InvalidOptionError} for anything else.
 */
/** What a `store` option takes, for its error. @internal */
export const STORE_TAKES = "a LangGraph BaseStore, or a @langchain/langgraph-sdk Client or its client.store";

export function asBaseStore(component: string, store: unknown): BaseStore | undefined {
  if (store === undefined || store === null) return undefined;
  if (isSdkStoreSource(store)) return sdkStore(store);
  if (typeof store === "object" && typeof (store as BaseStore).get === "function" && typeof (store as BaseStore).batch === "function") return store as BaseStore;
  throw invalidOption(component, "store", store, STORE_TAKES);
}
