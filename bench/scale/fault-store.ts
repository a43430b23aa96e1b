/**
 * A store wrapper for fault injection: every operation goes to the wrapped store, and a hook runs
 * before and after each write (a put or delete, alone or in a batch) and can throw (a failed write)
 * or never return (a process stopped in the middle of an archive write).
 */
import { BaseStore, type Item, type ListNamespacesOperation, type Operation, type OperationResults, type SearchItem } from "@langchain/langgraph-checkpoint";

/** A write the store is asked to do: its namespace and key. */
export interface StoreWrite {
  readonly namespace: readonly string[];
  readonly key: string;
}

/** Hooks of {@link FaultStore}. */
export interface FaultHooks {
  /** Before a write reaches the store; throw to fail it. */
  beforeWrite?: (write: StoreWrite) => void | Promise<void>;
  /** After the store has done the write (and committed it). */
  afterWrite?: (write: StoreWrite) => void | Promise<void>;
}

function isPut(operation: Operation): operation is Operation & { namespace: string[]; key: string; value: unknown } {
  return typeof operation === "object" && operation !== null && "value" in operation && "key" in operation && "namespace" in operation;
}

/** A `BaseStore` that delegates to `inner` and runs {@link FaultHooks} around writes. */
export class FaultStore extends BaseStore {
  constructor(
    readonly inner: BaseStore,
    readonly hooks: FaultHooks,
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const writes = operations.filter(isPut).map((operation) => ({ namespace: operation.namespace, key: operation.key }));
    for (const write of writes) await this.hooks.beforeWrite?.(write);
    const results = await this.inner.batch(operations);
    for (const write of writes) await this.hooks.afterWrite?.(write);
    return results;
  }

  override async get(namespace: string[], key: string): Promise<Item | null> {
    return this.inner.get(namespace, key);
  }

  override async search(namespacePrefix: string[], options?: Parameters<BaseStore["search"]>[1]): Promise<SearchItem[]> {
    return this.inner.search(namespacePrefix, options);
  }

  override async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[]): Promise<void> {
    await this.hooks.beforeWrite?.({ namespace, key });
    await this.inner.put(namespace, key, value, index);
    await this.hooks.afterWrite?.({ namespace, key });
  }

  override async delete(namespace: string[], key: string): Promise<void> {
    await this.hooks.beforeWrite?.({ namespace, key });
    await this.inner.delete(namespace, key);
    await this.hooks.afterWrite?.({ namespace, key });
  }

  override async listNamespaces(options?: Omit<ListNamespacesOperation, "matchConditions"> & { prefix?: string[]; suffix?: string[] }): Promise<string[][]> {
    return this.inner.listNamespaces(options as Parameters<BaseStore["listNamespaces"]>[0]);
  }

  override start(): void | Promise<void> {
    return this.inner.start();
  }

  override stop(): void | Promise<void> {
    return this.inner.stop();
  }
}
