/**
 * Promises whose value is known when they are made, readable without an await.
 *
 * `compact()` decides most of an agent loop's steps (a no-op under the bound) synchronously, but
 * returns a promise, and every `await` of it is a microtask turn in which other queued work of the
 * process (other threads' steps, a checkpoint's write) runs first. A caller that reads the value
 * with {@link settledValue} goes on at once instead: the graph adapters run the model node in the
 * same synchronous stretch as the compaction's decision. @internal
 */

const SETTLED: unique symbol = Symbol("langchain-compaction.settled");

type Settled<T> = Promise<T> & { readonly [SETTLED]?: { readonly value: T } };

/** A promise resolved with `value`, which {@link settledValue} reads synchronously. @internal */
export function settledPromise<T>(value: T): Promise<T> {
  const promise = Promise.resolve(value) as Settled<T>;
  Object.defineProperty(promise, SETTLED, { value: { value } });
  return promise;
}

/**
 * The value of a promise made by {@link settledPromise}, as `{ value }`; `undefined` for any other
 * promise (its value is only known by awaiting it). @internal
 */
export function settledValue<T>(promise: Promise<T>): { readonly value: T } | undefined {
  return (promise as Settled<T>)[SETTLED];
}
