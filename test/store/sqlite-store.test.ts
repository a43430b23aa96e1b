/**
 * SqliteStore against the cases of PostgresStore's own tests (langgraphjs
 * libs/checkpoint-postgres/src/tests/store/{crud-operations,search,namespace,batch,error-handling}
 * and tests/namespace-matching, without their vector, text-search and TTL cases), run on a SQLite
 * file, on an in-memory SQLite database sharing a SqliteSaver's connection, and on LangGraph's
 * InMemoryStore as the reference. Where InMemoryStore behaves otherwise the test says so.
 * (The namespace cases are those of the upstream PostgresStore that anchors prefixes to whole labels
 * and reads `*` as a wildcard in listings; the 1.0.x PostgresStore installed here does neither.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import { SqliteStore, UnsupportedStoreOperationError } from "../../src/store/index.js";

const directory = mkdtempSync(join(tmpdir(), "langchain-compaction-store-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

/** Where a store behaves otherwise than SqliteStore. */
interface Traits {
  /** "sqlite": SqliteStore; "memory": InMemoryStore. */
  readonly kind: "sqlite" | "memory";
}

function storeSuite(name: string, create: () => BaseStore, traits: Traits): void {
  describe(name, () => {
    const sqlite = traits.kind === "sqlite";
    let store: BaseStore;
    beforeEach(() => {
      store = create();
    });

    describe("CRUD", () => {
      it("stores and retrieves a simple item", async () => {
        await store.put(["crud", "simple"], "item1", { foo: "bar", num: 42 });
        const item = await store.get(["crud", "simple"], "item1");
        expect(item).toMatchObject({ namespace: ["crud", "simple"], key: "item1", value: { foo: "bar", num: 42 } });
        expect(item?.createdAt).toBeInstanceOf(Date);
        expect(item?.updatedAt).toBeInstanceOf(Date);
      });

      it("updates an existing item, keeping createdAt and advancing updatedAt", async () => {
        await store.put(["crud", "update"], "item2", { foo: "bar" });
        const original = await store.get(["crud", "update"], "item2");
        // InMemoryStore returns its live item, which the next put rewrites: keep what it said then.
        const originalValue = structuredClone(original?.value);
        const originalCreatedAt = original?.createdAt.getTime();
        await store.put(["crud", "update"], "item2", { foo: "baz", extra: 123 });
        const updated = await store.get(["crud", "update"], "item2");
        expect(originalValue).toEqual({ foo: "bar" });
        expect(updated?.value).toEqual({ foo: "baz", extra: 123 });
        expect(updated?.createdAt.getTime()).toBe(originalCreatedAt);
        // Two puts in the same millisecond: SqliteStore still advances updatedAt; InMemoryStore may not.
        if (sqlite) expect(updated!.updatedAt.getTime()).toBeGreaterThan(original!.updatedAt.getTime());
        else expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(original!.updatedAt.getTime());
      });

      it("deletes an item", async () => {
        await store.put(["crud", "delete"], "item3", { toDelete: true });
        expect((await store.get(["crud", "delete"], "item3"))?.value).toEqual({ toDelete: true });
        await store.delete(["crud", "delete"], "item3");
        expect(await store.get(["crud", "delete"], "item3")).toBeNull();
      });

      it("keeps complex JSON values", async () => {
        const value = { string: "test", number: 42, boolean: true, null: null, array: [1, 2, 3, "four"], nested: { deep: { value: "nested data" } }, text: "é 😀 \u0000" };
        await store.put(["crud", "complex"], "item4", value);
        expect((await store.get(["crud", "complex"], "item4"))?.value).toEqual(value);
      });

      it("returns null for a missing item", async () => {
        expect(await store.get(["crud", "missing"], "nope")).toBeNull();
      });

      it.each([
        [[], "Namespace cannot be empty"],
        [["invalid.namespace"], "Namespace labels cannot contain periods"],
        [["valid", ""], "Namespace labels cannot be empty strings"],
        [["valid", 123 as unknown as string], "Namespace labels must be strings"],
        [["langgraph"], 'Root label for namespace cannot be "langgraph"'],
        [["tenant:a"], "Namespace labels cannot contain colons"],
      ])("rejects the namespace %j on put", async (namespace, message) => {
        await expect(store.put(namespace, "key", { foo: "bar" })).rejects.toThrow(message);
      });

      it("accepts index: false", async () => {
        await store.put(["vectors", "no-index"], "doc1", { title: "Test Document" }, false);
        expect((await store.get(["vectors", "no-index"], "doc1"))?.value).toEqual({ title: "Test Document" });
      });
    });

    describe("search", () => {
      beforeEach(async () => {
        await store.put(["docs"], "doc1", { title: "JavaScript Guide", category: "programming", difficulty: "beginner", level: 1, tags: ["javascript", "web"] });
        await store.put(["docs"], "doc2", { title: "TypeScript Handbook", category: "programming", difficulty: "intermediate", level: 2, tags: ["typescript"] });
        await store.put(["docs"], "doc3", { title: "Python Basics", category: "programming", difficulty: "beginner", level: 3, tags: ["python"] });
        await store.put(["recipes"], "recipe1", { title: "Chocolate Cake", category: "dessert", difficulty: "easy", level: 1, tags: ["cake"] });
      });
      const keys = (items: { key: string }[]) => items.map((item) => item.key).sort();

      it("searches a namespace with no options", async () => {
        expect(keys(await store.search(["docs"]))).toEqual(["doc1", "doc2", "doc3"]);
      });

      it("orders the newest first (InMemoryStore: in insertion order)", async () => {
        const order = (await store.search(["docs"])).map((item) => item.key);
        expect(order).toEqual(sqlite ? ["doc3", "doc2", "doc1"] : ["doc1", "doc2", "doc3"]);
      });

      it("searches everything under an empty prefix", async () => {
        expect(keys(await store.search([]))).toEqual(["doc1", "doc2", "doc3", "recipe1"]);
      });

      it.each([
        [{ category: "programming" }, ["doc1", "doc2", "doc3"]],
        [{ difficulty: { $eq: "beginner" } }, ["doc1", "doc3"]],
        [{ category: "programming", difficulty: { $ne: "beginner" } }, ["doc2"]],
        [{ difficulty: { $in: ["beginner", "intermediate"] } }, ["doc1", "doc2", "doc3"]],
        [{ difficulty: { $nin: ["beginner"] } }, ["doc2"]],
        [{ level: { $gt: 1 } }, ["doc2", "doc3"]],
        [{ level: { $gte: 2, $lt: 3 } }, ["doc2"]],
        [{ level: { $lte: 1 } }, ["doc1"]],
        [{ missing: "x" }, []],
      ])("filters with %j", async (filter, expected) => {
        expect(keys(await store.search(["docs"], { filter }))).toEqual(expected);
      });

      it("filters on a whole array value (JSON equality; InMemoryStore compares by identity)", async () => {
        expect(keys(await store.search(["docs"], { filter: { tags: ["typescript"] } }))).toEqual(sqlite ? ["doc2"] : []);
      });

      it("pages with limit and offset, without overlap", async () => {
        const page1 = await store.search(["docs"], { limit: 2, offset: 0 });
        const page2 = await store.search(["docs"], { limit: 2, offset: 2 });
        expect(page1).toHaveLength(2);
        expect(page2).toHaveLength(1);
        expect(keys([...page1, ...page2])).toEqual(["doc1", "doc2", "doc3"]);
      });

      it("pages filtered results", async () => {
        const page = await store.search(["docs"], { filter: { difficulty: "beginner" }, limit: 1, offset: 1 });
        expect(page).toHaveLength(1);
        expect(await store.search(["docs"], { filter: { difficulty: "beginner" }, limit: 1, offset: 2 })).toEqual([]);
      });

      it("returns an empty array for a namespace with no items", async () => {
        expect(await store.search(["nonexistent"])).toEqual([]);
      });

      // Limits of SqliteStore alone (no vector search, no field index): defined for it only.
      if (sqlite) {
        it("throws UnsupportedStoreOperationError for a search with a query", async () => {
          const error = await store.search(["docs"], { query: "JavaScript" }).catch((caught: unknown) => caught);
          expect(UnsupportedStoreOperationError.isInstance(error)).toBe(true);
          expect((error as UnsupportedStoreOperationError).operation).toBe("search with a query");
        });

        it("throws UnsupportedStoreOperationError for a put with fields to index", async () => {
          await expect(store.put(["docs"], "doc9", { title: "x" }, ["title"])).rejects.toThrow(UnsupportedStoreOperationError);
          expect(await store.get(["docs"], "doc9")).toBeNull();
        });
      }
    });

    describe("namespaces", () => {
      const namespaces = [
        ["literal", "*"],
        ["literal", "*", "leaf"],
        ["literal", "actual"],
        ["wildcards", "one", "v1"],
        ["wildcards", "one", "v1", "child"],
        ["wildcards", "one", "two", "v1"],
        ["wildcards", "v1"],
        ["wildcards", "one", "v10"],
        ["wildcards", "star*", "v1"],
        ["wildcards", "starX", "v1"],
        ["wildcards", "a[b](c)+?$^|", "v1"],
        ["wildcards", "one", "v1\n"],
        ["tenant", "a"],
        ["tenant", "a", "notes"],
        ["tenant", "ab"],
        ["tenant", "z"],
        ["alice"],
        ["users", "alice"],
        ["users", "malice"],
        ["users", "alice2"],
        ["tenant", "langgraph"],
        ["tenant", "mylanggraph"],
        ["tenant", "a", "alice"],
        ["tenant", "ab", "alice"],
        ["under_score", "100%", "back\\slash"],
      ];
      beforeEach(async () => {
        for (const namespace of namespaces) await store.put(namespace, namespace.join("-"), { text: "hello", enabled: true });
      });

      it("lists all namespaces, sorted by their labels joined with ':' (InMemoryStore: in locale order)", async () => {
        const listed = await store.listNamespaces({ limit: 1000 });
        const byCodeUnits = (a: string[], b: string[]) => (a.join(":") < b.join(":") ? -1 : 1);
        const byLocale = (a: string[], b: string[]) => a.join(":").localeCompare(b.join(":"));
        expect(listed).toEqual([...namespaces].sort(sqlite ? byCodeUnits : byLocale));
      });

      it("lists namespaces under a prefix", async () => {
        expect(await store.listNamespaces({ prefix: ["tenant", "a"] })).toEqual([["tenant", "a"], ["tenant", "a", "alice"], ["tenant", "a", "notes"]]);
        expect(await store.listNamespaces({ prefix: ["missing"] })).toEqual([]);
      });

      it("lists namespaces by suffix, and by prefix and suffix", async () => {
        expect(await store.listNamespaces({ suffix: ["alice"] })).toEqual([["alice"], ["tenant", "a", "alice"], ["tenant", "ab", "alice"], ["users", "alice"]]);
        expect(await store.listNamespaces({ prefix: ["tenant", "a"], suffix: ["alice"] })).toEqual([["tenant", "a", "alice"]]);
        expect(await store.listNamespaces({ prefix: [], suffix: [], limit: 1000 })).toHaveLength(namespaces.length);
      });

      it("truncates to maxDepth, without duplicates", async () => {
        expect(await store.listNamespaces({ prefix: ["tenant"], maxDepth: 2 })).toEqual([["tenant", "a"], ["tenant", "ab"], ["tenant", "langgraph"], ["tenant", "mylanggraph"], ["tenant", "z"]]);
        expect(await store.listNamespaces({ maxDepth: 1, limit: 1000 })).toEqual([["alice"], ["literal"], ["tenant"], ["under_score"], ["users"], ["wildcards"]]);
      });

      it("pages mixed wildcard and literal conditions", async () => {
        expect(await store.listNamespaces({ prefix: ["tenant", "*"], suffix: ["alice"], limit: 1, offset: 1 })).toEqual([["tenant", "ab", "alice"]]);
        expect(await store.listNamespaces({ prefix: ["tenant"], suffix: ["*", "alice"], limit: 1, offset: 1 })).toEqual([["tenant", "ab", "alice"]]);
      });

      it.each([
        { prefix: ["literal", "*"] },
        { prefix: ["wildcards", "*", "v1"] },
        { suffix: ["wildcards", "*", "v1"] },
        { prefix: ["wildcards", "*", "*", "v1"] },
        { suffix: ["*", "v1"] },
        { prefix: ["*"], suffix: ["*", "v1"] },
        { prefix: ["wildcards", "star*"], suffix: ["*", "v1"] },
        { prefix: ["wildcards", "star*", "*"] },
        { prefix: ["wildcards", "a[b](c)+?$^|", "*"] },
        { suffix: ["a[b](c)+?$^|", "*"] },
        { prefix: ["wildcards", "*", "v1\n"] },
        { suffix: ["*", "v1\n"] },
      ])("matches whole labels for %j as InMemoryStore does", async (filter) => {
        const reference = new InMemoryStore();
        for (const namespace of namespaces) await reference.put(namespace, namespace.join("-"), {});
        const expected = await reference.listNamespaces({ ...filter, limit: 100 });
        expect(expected).not.toEqual([]);
        expect(await store.listNamespaces({ ...filter, limit: 100 })).toEqual(expected);
      });

      it("keeps search prefixes literal and anchored to whole labels", async () => {
        expect((await store.search(["literal", "*"])).map((item) => item.namespace.join(":")).sort()).toEqual(["literal:*", "literal:*:leaf"]);
        const tenantA = await store.search(["tenant", "a"], { filter: { enabled: true }, limit: 100 });
        expect(tenantA.map((item) => item.namespace.join(":")).sort()).toEqual(["tenant:a", "tenant:a:alice", "tenant:a:notes"]);
        expect(await store.get(["tenant", "a"], "tenant-ab")).toBeNull();
        expect(await store.search(["tenant", "a"], { filter: { enabled: false } })).toEqual([]);
      });

      it("allows a reserved root label in a suffix; SqliteStore, like PostgresStore, not in a prefix", async () => {
        expect(await store.listNamespaces({ suffix: ["langgraph"] })).toEqual([["tenant", "langgraph"]]);
        if (sqlite) await expect(store.listNamespaces({ prefix: ["langgraph"] })).rejects.toThrow(/Root label/);
        else expect(await store.listNamespaces({ prefix: ["langgraph"] })).toEqual([]);
      });

      it("rejects separator and empty labels on every read and write path", async () => {
        for (const label of ["tenant:a", "", "a.b"]) {
          await expect(store.listNamespaces({ prefix: [label] })).rejects.toThrow();
          await expect(store.listNamespaces({ suffix: [label] })).rejects.toThrow();
          await expect(store.search([label])).rejects.toThrow();
          await expect(store.put([label], "key", {})).rejects.toThrow();
          await expect(store.get([label], "key")).rejects.toThrow();
          await expect(store.delete([label], "key")).rejects.toThrow();
        }
      });

      it("keeps labels with SQL wildcard characters literal (PostgresStore rejects them)", async () => {
        expect((await store.search(["under_score"])).map((item) => item.key)).toEqual(["under_score-100%-back\\slash"]);
        expect(await store.search(["under-score"])).toEqual([]);
        expect(await store.listNamespaces({ prefix: ["under_score", "100%"] })).toEqual([["under_score", "100%", "back\\slash"]]);
      });
    });

    describe("batch", () => {
      it("runs puts and gets in order (InMemoryStore applies the puts last and returns null for them)", async () => {
        const results = await store.batch([
          { namespace: ["batch"], key: "item1", value: { data: "first" } },
          { namespace: ["batch"], key: "item2", value: { data: "second" } },
          { namespace: ["batch"], key: "item1" },
        ]);
        expect(results).toHaveLength(3);
        if (sqlite) {
          expect(results[0]).toBeUndefined();
          expect(results[1]).toBeUndefined();
          expect(results[2]).toMatchObject({ key: "item1", value: { data: "first" } });
        } else expect(results).toEqual([null, null, null]);
        expect((await store.get(["batch"], "item2"))?.value).toEqual({ data: "second" });
      });

      it("mixes every kind of operation", async () => {
        await store.put(["mixed", "a"], "k", { n: 1 });
        const [search, list, get] = await store.batch([
          { namespacePrefix: ["mixed"], filter: { n: 1 }, limit: 10, offset: 0 },
          { matchConditions: [{ matchType: "prefix", path: ["mixed"] }], limit: 10, offset: 0 },
          { namespace: ["mixed", "a"], key: "k" },
        ] as const);
        expect(search.map((item) => item.key)).toEqual(["k"]);
        expect(list).toEqual([["mixed", "a"]]);
        expect(get?.value).toEqual({ n: 1 });
      });

      it("rejects a batch with an invalid operation; SqliteStore then changes nothing", async () => {
        await expect(
          store.batch([
            { namespace: ["batch"], key: "item1", value: { data: "first" } },
            { namespace: [], key: "item2", value: { data: "invalid" } },
            { namespace: ["batch"], key: "item1" },
          ]),
        ).rejects.toThrow("Namespace cannot be empty");
        if (sqlite) expect(await store.get(["batch"], "item1")).toBeNull();
      });
    });
  });
}

storeSuite("SqliteStore on a file", () => SqliteStore.fromConnString(join(directory, `store-${files++}.sqlite`)), { kind: "sqlite" });
storeSuite("SqliteStore sharing a SqliteSaver's connection", () => new SqliteStore(SqliteSaver.fromConnString(":memory:").db), { kind: "sqlite" });
storeSuite("InMemoryStore (reference)", () => new InMemoryStore(), { kind: "memory" });

describe("SqliteStore", () => {
  it("persists across connections to the same file, beside a SqliteSaver's tables", async () => {
    const path = join(directory, "shared.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    await saver.getTuple({ configurable: { thread_id: "t" } }); // creates the saver's tables
    const store = new SqliteStore(saver.db);
    await store.put(["a"], "k", { kept: true });
    saver.db.close();
    const reopened = SqliteStore.fromConnString(path);
    expect((await reopened.get(["a"], "k"))?.value).toEqual({ kept: true });
    const tables = (reopened.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
    expect(tables).toEqual(["checkpoints", "store", "writes"]);
  });

  it("takes its table name from the options and rejects a name that is not an identifier", () => {
    const db = SqliteSaver.fromConnString(":memory:").db;
    expect(() => new SqliteStore(db, { table: "x; DROP TABLE y" })).toThrow(InvalidOptionError);
    expect(() => new SqliteStore(db, { table: "x; DROP TABLE y" })).toThrow(
      'SqliteStore: invalid option `table`: expected an SQL identifier: letters, digits and underscores, not starting with a digit; got the string "x; DROP TABLE y"',
    );
    const store = new SqliteStore(db, { table: "archive_items" });
    store.setup();
    expect((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name)).toEqual(["archive_items"]);
  });
});
