/**
 * SqliteStore on the inputs a SQLite table cannot keep as given (a key or label with a lone
 * surrogate, a value that is not JSON) and on counts that are not whole numbers in range, beside what
 * LangGraph's InMemoryStore and PostgresStore do with the same input. SqliteStore keeps what it can
 * give back as it was put and rejects the rest with a typed error that names the argument; a batch
 * it rejects changes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@langchain/langgraph";
import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidStoreArgumentError, InvalidStoreNamespaceError, SqliteStore } from "../../src/store/index.js";
import { createTestSchema, describeWithPostgres, type TestSchema } from "../support/postgres.js";

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-store-edges-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

const LONE_KEY = "k\uD800";
const LONE_LABEL = "n\uDC00";

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error;
}

async function expectArgumentError(call: Promise<unknown>, argument: string, message: string): Promise<void> {
  const error = await rejection(call);
  expect(InvalidStoreArgumentError.isInstance(error)).toBe(true);
  expect((error as InvalidStoreArgumentError).argument).toBe(argument);
  expect(error.message).toBe(`SqliteStore: invalid ${argument}: ${message}`);
}

describe.each([
  ["on a file", () => SqliteStore.fromConnString(join(directory, `edges-${files++}.sqlite`))],
  ["sharing a SqliteSaver's connection", () => new SqliteStore(SqliteSaver.fromConnString(":memory:").db)],
])("SqliteStore %s", (_name, create) => {
  let store: SqliteStore;
  beforeEach(async () => {
    store = create();
    for (const key of ["a", "b", "c"]) await store.put(["docs"], key, { x: 1 });
  });
  const keys = async (options: Parameters<SqliteStore["search"]>[1]) => (await store.search(["docs"], options)).map((item) => item.key);

  it("keeps keys and labels with surrogate pairs as they were put", async () => {
    await store.put(["n😀"], "k😀", { a: 1 });
    expect((await store.get(["n😀"], "k😀"))?.key).toBe("k😀");
    expect(await store.listNamespaces({ prefix: ["n😀"] })).toEqual([["n😀"]]);
    expect((await store.search(["n😀"])).map((item) => [item.namespace, item.key])).toEqual([[["n😀"], "k😀"]]);
  });

  it("rejects a key with a lone surrogate on put, get and delete, and stores nothing", async () => {
    const message = `"k\\ud800" holds a lone surrogate (half of a UTF-16 pair), which SQLite's text cannot hold`;
    await expectArgumentError(store.put(["sur"], LONE_KEY, { a: 1 }), "key", message);
    await expectArgumentError(store.get(["sur"], LONE_KEY), "key", message);
    await expectArgumentError(store.delete(["sur"], LONE_KEY), "key", message);
    expect(await store.search(["sur"])).toEqual([]);
    expect(await store.listNamespaces({ prefix: ["sur"] })).toEqual([]);
  });

  it("rejects a namespace label with a lone surrogate on every path, and stores nothing", async () => {
    const calls = [
      store.put([LONE_LABEL], "k", { a: 1 }),
      store.get([LONE_LABEL], "k"),
      store.delete([LONE_LABEL], "k"),
      store.search([LONE_LABEL]),
      store.listNamespaces({ prefix: [LONE_LABEL] }),
      store.listNamespaces({ suffix: [LONE_LABEL] }),
    ];
    for (const call of calls) {
      const error = await rejection(call);
      expect(InvalidStoreNamespaceError.isInstance(error)).toBe(true);
      expect(error.message).toBe('Invalid namespace label "n\\udc00". Namespace labels cannot contain lone surrogates (half of a UTF-16 pair).');
    }
    expect(await store.listNamespaces({})).toEqual([["docs"]]);
  });

  it("keeps a value's lone surrogates (JSON escapes them)", async () => {
    await store.put(["docs"], "lone-value", { text: "a\uD800b" });
    expect((await store.get(["docs"], "lone-value"))?.value).toEqual({ text: "a\uD800b" });
  });

  it.each([
    [{ limit: 2.5 }, "limit", "2.5 is not a non-negative integer"],
    [{ limit: Number.NaN }, "limit", "NaN is not a non-negative integer"],
    [{ limit: -1 }, "limit", "-1 is not a non-negative integer"],
    [{ limit: -1, filter: { x: 1 } }, "limit", "-1 is not a non-negative integer"],
    [{ limit: 2.5, filter: { x: 1 } }, "limit", "2.5 is not a non-negative integer"],
    [{ offset: -1 }, "offset", "-1 is not a non-negative integer"],
    [{ offset: 1.5 }, "offset", "1.5 is not a non-negative integer"],
    [{ offset: 1.5, filter: { x: 1 } }, "offset", "1.5 is not a non-negative integer"],
  ])("rejects search %j", async (options, argument, message) => {
    await expectArgumentError(store.search(["docs"], options), argument, message);
  });

  it("pages with whole limits and offsets, with and without a filter", async () => {
    expect(await keys({ limit: 2, offset: 1 })).toEqual(["b", "a"]);
    expect(await keys({ limit: 2, offset: 1, filter: { x: 1 } })).toEqual(["b", "a"]);
    expect(await keys({ limit: 0 })).toEqual([]);
  });

  it("takes Infinity and whole numbers past SQLite's integers as no bound, as InMemoryStore does", async () => {
    await store.put(["more"], "m", { x: 1 });
    expect({
      search: [await keys({ limit: Number.POSITIVE_INFINITY }), await keys({ limit: 1e21 }), await keys({ limit: Number.POSITIVE_INFINITY, filter: { x: 1 } })],
      skipAll: [await keys({ offset: Number.POSITIVE_INFINITY }), await keys({ offset: 1e21 }), await keys({ offset: Number.POSITIVE_INFINITY, filter: { x: 1 } })],
      namespaces: [await store.listNamespaces({ limit: Number.POSITIVE_INFINITY }), await store.listNamespaces({ offset: Number.POSITIVE_INFINITY }), await store.listNamespaces({ maxDepth: Number.POSITIVE_INFINITY })],
    }).toEqual({
      search: [
        ["c", "b", "a"],
        ["c", "b", "a"],
        ["c", "b", "a"],
      ],
      skipAll: [[], [], []],
      namespaces: [[["docs"], ["more"]], [], [["docs"], ["more"]]],
    });
  });

  it.each([
    [{ maxDepth: 0 }, "maxDepth", "0 is not a positive integer"],
    [{ maxDepth: 1.5 }, "maxDepth", "1.5 is not a positive integer"],
    [{ limit: 2.5 }, "limit", "2.5 is not a non-negative integer"],
    [{ limit: -1 }, "limit", "-1 is not a non-negative integer"],
    [{ offset: -1 }, "offset", "-1 is not a non-negative integer"],
    [{ offset: 1.5 }, "offset", "1.5 is not a non-negative integer"],
  ])("rejects listNamespaces %j", async (options, argument, message) => {
    await expectArgumentError(store.listNamespaces(options), argument, message);
  });

  it.each([
    ["undefined", undefined, "it cannot be written as JSON (got undefined; delete an item with store.delete or a null value)"],
    ["a BigInt", { n: 1n }, "it cannot be written as JSON (Do not know how to serialize a BigInt)"],
  ])("rejects a put of %s, and stores nothing", async (_label, value, message) => {
    await expectArgumentError(store.put(["docs"], "a", value as Record<string, unknown>), "value", message);
    expect((await store.get(["docs"], "a"))?.value).toEqual({ x: 1 });
  });

  it("rejects get and delete in the empty namespace, as LangGraph's stores do", async () => {
    for (const call of [store.get([], "a"), store.delete([], "a")]) {
      const error = await rejection(call);
      expect(InvalidStoreNamespaceError.isInstance(error)).toBe(true);
      expect(error.message).toBe("Namespace cannot be empty.");
    }
  });

  it("changes nothing for a batch with an invalid argument", async () => {
    const batch = store.batch([
      { namespace: ["docs"], key: "d", value: { x: 2 } },
      { namespacePrefix: ["docs"], limit: 1.5, offset: 0 },
    ]);
    await expectArgumentError(batch, "limit", "1.5 is not a non-negative integer");
    expect(await store.get(["docs"], "d")).toBeNull();
  });
});

describe("InMemoryStore on the same input (the reference)", () => {
  it("keeps lone surrogates in keys and labels, since it stores JavaScript strings", async () => {
    const store = new InMemoryStore();
    await store.put([LONE_LABEL], LONE_KEY, { a: 1 });
    expect((await store.get([LONE_LABEL], LONE_KEY))?.key).toBe(LONE_KEY);
    expect(await store.listNamespaces({})).toEqual([[LONE_LABEL]]);
  });

  it("slices with whatever limit and offset it is given, and gives an empty label for maxDepth 0", async () => {
    const store = new InMemoryStore();
    for (const key of ["a", "b", "c"]) await store.put(["docs"], key, { x: 1 });
    const keys = async (options: Parameters<InMemoryStore["search"]>[1]) => (await store.search(["docs"], options)).map((item) => item.key);
    expect(await keys({ limit: 2.5 })).toEqual(["a", "b"]);
    expect(await keys({ limit: Number.NaN })).toEqual([]);
    expect(await keys({ limit: -1 })).toEqual(["a", "b"]);
    expect(await keys({ offset: -1 })).toEqual(["c"]);
    expect(await keys({ offset: 1.5 })).toEqual(["b", "c"]);
    expect(await store.listNamespaces({ maxDepth: 0 })).toEqual([[""]]);
  });

  it("keeps an item whose value is undefined, and rejects get in the empty namespace", async () => {
    const store = new InMemoryStore();
    await store.put(["u"], "k", undefined as unknown as Record<string, unknown>);
    expect(await store.get(["u"], "k")).toMatchObject({ key: "k", value: undefined });
    const error = await rejection(store.get([], "k"));
    expect(error).toBeInstanceOf(InvalidNamespaceError);
    expect(error.message).toBe("Namespace cannot be empty.");
  });
});

describeWithPostgres("PostgresStore on the same input (the tie-breaker)", (url) => {
  let schema: TestSchema;
  let store: PostgresStore;
  beforeEach(async () => {
    schema = await createTestSchema(url, "store_edges");
    store = PostgresStore.fromConnString(url, { schema: schema.name });
    await store.setup();
    for (const key of ["a", "b", "c"]) await store.put(["docs"], key, { x: 1 });
  });
  afterEach(async () => {
    await store.stop();
    await schema.drop();
  });

  it("turns a lone surrogate in a key or label into U+FFFD: the item comes back under another key, and two keys become one", async () => {
    await store.put([LONE_LABEL], LONE_KEY, { a: 1 });
    await store.put([LONE_LABEL], "k\uDBFF", { a: 2 });
    expect(await store.get([LONE_LABEL], LONE_KEY)).toMatchObject({ namespace: ["n\uFFFD"], key: "k\uFFFD", value: { a: 2 } });
    expect((await store.search([LONE_LABEL])).map((item) => item.key)).toEqual(["k\uFFFD"]);
  });

  it("rejects a limit or offset that is not a non-negative integer, and an undefined value, with a database error", async () => {
    for (const options of [{ limit: 2.5 }, { limit: Number.NaN }, { limit: -1 }, { offset: -1 }, { offset: 1.5 }]) {
      await expect(store.search(["docs"], options)).rejects.toThrow(/invalid input syntax for type bigint|must not be negative/u);
    }
    await expect(store.put(["docs"], "u", undefined as unknown as Record<string, unknown>)).rejects.toThrow(/violates not-null constraint/u);
  });

  it("rejects get in the empty namespace", async () => {
    await expect(store.get([], "a")).rejects.toThrow("Namespace cannot be empty.");
  });
});
