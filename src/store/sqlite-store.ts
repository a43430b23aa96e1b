import { BaseStore, type GetOperation, type Item, type ListNamespacesOperation, type Operation, type OperationResults, type PutOperation, type SearchOperation } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { invalidOption } from "../option-errors.js";
import { UnsupportedStoreOperationError, storeValueJson, type InvalidStoreArgumentError, type InvalidStoreNamespaceError, validateStoreCount, validateStoreKey, validateStoreNamespace } from "./store-errors.js";
import { joinNamespace, matchesCondition, matchesFilter } from "./store-matching.js";

/**
 * The parts of a better-sqlite3 `Database` the store uses: a `SqliteSaver`'s `db`, or the `Database`
 * of your own better-sqlite3.
 */
export interface SqliteStoreDatabase {
  prepare(sql: string): {
    run(...parameters: unknown[]): unknown;
    get(...parameters: unknown[]): unknown;
    all(...parameters: unknown[]): unknown[];
    iterate(...parameters: unknown[]): IterableIterator<unknown>;
  };
  exec(sql: string): unknown;
  transaction<F extends (...args: never[]) => unknown>(body: F): F;
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The table holding the items, created on first use (letters, digits and `_`, not starting with a
   * digit). @default "store"
   */
  table?: string;
}

interface Row {
  namespace: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
}

function itemOf(row: Row): Item {
  return {
    namespace: row.namespace.split(":"),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * A LangGraph `BaseStore` in a SQLite database (better-sqlite3, which
 * `@langchain/langgraph-checkpoint-sqlite` brings): an embedded store that needs no server, e.g. in the
 * same file as a `SqliteSaver`, so a graph compiled with both keeps its compaction archive (and any
 * other long-term memory) on disk beside its checkpoints.
 *
 * Implements the whole `BaseStore` interface: `batch`, `get`, `put`, `delete`, `search` (namespace
 * prefix, `filter` with equality or the `$eq`/`$ne`/`$gt`/`$gte`/`$lt`/`$lte`/`$in`/`$nin` operators,
 * `limit` default 10, `offset`; newest created first) and `listNamespaces` (`prefix`, `suffix`, `*`
 * matching any one label, `maxDepth`, `limit` default 100, `offset`; sorted). A batch runs its
 * operations in order in one transaction: a get sees a put made earlier in the same batch, and a
 * batch with an invalid operation changes nothing. A put on an existing key keeps its `createdAt` and
 * advances `updatedAt` (by at least 1 ms). Namespaces follow LangGraph's rules (not empty but for a
 * search, no empty label, no `.`, `:` or NUL, no root label `"langgraph"` for a put or a listing
 * prefix). A label or key with a lone surrogate, a value that is not JSON (undefined, a BigInt, a
 * cycle), a `limit` or `offset` that is not a non-negative integer and a `maxDepth` that is not a
 * positive integer are rejected before anything runs ({@link InvalidStoreNamespaceError},
 * {@link InvalidStoreArgumentError}); `Infinity` is taken for any of the three, as no bound.
 *
 * There is no vector index: a `search` with a `query` and a `put` with fields to index (an `index`
 * array) throw {@link UnsupportedStoreOperationError}; `put(..., false)` and the default are fine.
 * No TTL. Several processes may share the file (SQLite locking; use WAL mode for concurrent readers).
 *
 * @example
 * const checkpointer = SqliteSaver.fromConnString("./agent.sqlite");
 * const store = new SqliteStore(checkpointer.db); // one connection, one file
 * const graph = builder.compile({ checkpointer, store });
 */
export class SqliteStore extends BaseStore {
  /** The database the items are in. */
  readonly db: SqliteStoreDatabase;
  private readonly table: string;
  private isSetup = false;

  constructor(db: SqliteStoreDatabase, options: SqliteStoreOptions = {}) {
    super();
    const table = options.table ?? "store";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(table)) throw invalidOption("SqliteStore", "table", table, "an SQL identifier: letters, digits and underscores, not starting with a digit");
    this.db = db;
    this.table = table;
  }

  /**
   * A store on the SQLite file at `path` (created if missing), on its own connection, in WAL mode.
   * @example
   * const store = SqliteStore.fromConnString("./agent.sqlite");
   */
  static fromConnString(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    // The Database class of the saver's own better-sqlite3 (this package does not depend on it directly).
    const db = SqliteSaver.fromConnString(path).db as unknown as SqliteStoreDatabase;
    db.pragma("journal_mode = WAL");
    return new SqliteStore(db, options);
  }

  /** Create the table and its index if missing. Called by every operation; idempotent. */
  setup(): void {
    if (this.isSetup) return;
    this.db.exec(`
CREATE TABLE IF NOT EXISTS "${this.table}" (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS "${this.table}_created" ON "${this.table}" (created_at);`);
    this.isSetup = true;
  }

  /**
   * Run `operations` in order, in one transaction; each result at its operation's position (a put
   * gives undefined).
   * @throws {InvalidStoreNamespaceError} for an invalid namespace (nothing is changed).
   * @throws {InvalidStoreArgumentError} for an invalid key, value, `limit`, `offset` or `maxDepth` (nothing is changed).
   * @throws {UnsupportedStoreOperationError} for a search with a query or a put with fields to index.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    this.setup();
    const values = operations.map((operation) => this.validate(operation));
    const run = this.db.transaction(() => operations.map((operation, position) => this.execute(operation, values[position])));
    return run() as OperationResults<Op>;
  }

  /** Throws for an operation the store cannot run as asked; for a put, gives its value's JSON text. */
  private validate(operation: Operation): string | undefined {
    if ("namespacePrefix" in operation) {
      validateStoreNamespace(operation.namespacePrefix, { allowEmpty: true, allowReservedRoot: true });
      validateStoreCount("limit", operation.limit, 0);
      validateStoreCount("offset", operation.offset, 0);
      if (typeof operation.query === "string" && operation.query !== "") {
        throw new UnsupportedStoreOperationError("search with a query", "SqliteStore has no vector index: search with a filter, not a query");
      }
    } else if ("matchConditions" in operation) {
      for (const condition of operation.matchConditions ?? []) {
        validateStoreNamespace(condition.path, { allowEmpty: true, allowReservedRoot: condition.matchType === "suffix" });
      }
      validateStoreCount("limit", operation.limit, 0);
      validateStoreCount("offset", operation.offset, 0);
      validateStoreCount("maxDepth", operation.maxDepth, 1);
    } else if ("value" in operation) {
      validateStoreNamespace(operation.namespace, { allowReservedRoot: operation.value === null });
      validateStoreKey(operation.key);
      if (operation.value === null) return undefined;
      if (Array.isArray(operation.index)) {
        throw new UnsupportedStoreOperationError("put with fields to index", "SqliteStore has no vector index: put with index false or undefined");
      }
      return storeValueJson(operation.value);
    } else {
      validateStoreNamespace((operation as GetOperation).namespace, { allowReservedRoot: true });
      validateStoreKey((operation as GetOperation).key);
    }
    return undefined;
  }

  private execute(operation: Operation, json: string | undefined): unknown {
    if ("namespacePrefix" in operation) return this.searchOperation(operation);
    if ("matchConditions" in operation) return this.listNamespacesOperation(operation);
    if ("value" in operation) return void this.putOperation(operation, json);
    const { namespace, key } = operation as GetOperation;
    const row = this.db.prepare(`SELECT * FROM "${this.table}" WHERE namespace = ? AND key = ?`).get(joinNamespace(namespace), key);
    return row === undefined ? null : itemOf(row as Row);
  }

  private putOperation(operation: PutOperation, json: string | undefined): void {
    const namespace = joinNamespace(operation.namespace);
    if (json === undefined) {
      this.db.prepare(`DELETE FROM "${this.table}" WHERE namespace = ? AND key = ?`).run(namespace, operation.key);
      return;
    }
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO "${this.table}" (namespace, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = max(excluded.updated_at, "${this.table}".updated_at + 1)`,
      )
      .run(namespace, operation.key, json, now, now);
  }

  private searchOperation(operation: SearchOperation): Item[] {
    const limit = operation.limit ?? 10;
    const offset = operation.offset ?? 0;
    const prefix = joinNamespace(operation.namespacePrefix);
    // Namespaces under `a:b` sort between "a:b:" and "a:b;" (";" follows ":"), so the primary key serves the range.
    const where = prefix === "" ? "" : "WHERE namespace = ? OR (namespace >= ? AND namespace < ?)";
    const parameters = prefix === "" ? [] : [prefix, `${prefix}:`, `${prefix};`];
    const order = `ORDER BY created_at DESC, rowid DESC`;
    const filter = operation.filter && Object.keys(operation.filter).length > 0 ? operation.filter : undefined;
    if (!filter) {
      // SQLite takes 64-bit integers: a larger count (or Infinity) bounds nothing a table can hold.
      const bound = (count: number) => Math.min(count, Number.MAX_SAFE_INTEGER);
      const rows = this.db.prepare(`SELECT * FROM "${this.table}" ${where} ${order} LIMIT ? OFFSET ?`).all(...parameters, bound(limit), bound(offset));
      return (rows as Row[]).map(itemOf);
    }
    // Filters are matched here, row by row, stopping once the page is full.
    const items: Item[] = [];
    let skipped = 0;
    for (const row of this.db.prepare(`SELECT * FROM "${this.table}" ${where} ${order}`).iterate(...parameters)) {
      if (items.length >= limit) break;
      const item = itemOf(row as Row);
      if (!matchesFilter(item.value, filter)) continue;
      if (skipped < offset) skipped++;
      else items.push(item);
    }
    return items;
  }

  private listNamespacesOperation(operation: ListNamespacesOperation): string[][] {
    const conditions = operation.matchConditions ?? [];
    const seen = new Set<string>();
    const namespaces: string[][] = [];
    for (const row of this.db.prepare(`SELECT DISTINCT namespace FROM "${this.table}"`).iterate()) {
      let namespace = (row as { namespace: string }).namespace.split(":");
      if (!conditions.every((condition) => matchesCondition(namespace, condition))) continue;
      if (operation.maxDepth !== undefined) namespace = namespace.slice(0, operation.maxDepth);
      const joined = joinNamespace(namespace);
      if (seen.has(joined)) continue;
      seen.add(joined);
      namespaces.push(namespace);
    }
    namespaces.sort((left, right) => {
      const a = joinNamespace(left);
      const b = joinNamespace(right);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    const offset = operation.offset ?? 0;
    return namespaces.slice(offset, offset + (operation.limit ?? 100));
  }
}
