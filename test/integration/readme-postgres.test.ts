/**
 * The README's "Running many workers on PostgreSQL" example, run as written against the test server,
 * in a database of its own (the example uses the default `public` schema).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeWithPostgres } from "../support/postgres.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HEADING = "## Running many workers on PostgreSQL";

/** The first ```ts block under the heading (the README is read when the test runs). */
function exampleCode(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf(HEADING);
  if (start < 0) throw new Error(`README.md has no "${HEADING}" section`);
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!match) throw new Error(`no ts block under "${HEADING}"`);
  return match[1]!;
}

async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Drop the example's database once its pools have really let go: a pool's `end()` resolves before
 * the server has seen every connection close, and forcing the drop would kill those connections
 * under the pool (an unhandled error). Bounded: 100 checks, 50 ms apart.
 */
async function dropDatabase(url: string, database: string): Promise<void> {
  for (let check = 0; check < 100; check++) {
    const rows = await adminQuery(url, "SELECT 1 FROM pg_stat_activity WHERE datname = $1", [database]);
    if (rows.length === 0) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  await adminQuery(url, `DROP DATABASE IF EXISTS "${database}"`);
}

describeWithPostgres("README: Running many workers on PostgreSQL", (url) => {
  const database = `compaction_readme_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const previous = process.env["DATABASE_URL"];

  beforeAll(async () => {
    await adminQuery(url, `CREATE DATABASE "${database}"`);
    const own = new URL(url);
    own.pathname = `/${database}`;
    process.env["DATABASE_URL"] = own.toString();
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env["DATABASE_URL"];
    else process.env["DATABASE_URL"] = previous;
    await dropDatabase(url, database);
    vi.restoreAllMocks();
  });

  it("runs the example with two workers on one database and prints what its comments say", async () => {
    const directory = join(root, "node_modules", ".cache", "readme-examples");
    mkdirSync(directory, { recursive: true });
    const file = join(directory, "postgres-workers.ts");
    writeFileSync(file, exampleCode().replaceAll('"langchain-compaction"', JSON.stringify(join(root, "src", "index.ts"))));
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await import(pathToFileURL(file).href);
    expect(log.mock.calls).toEqual([[4], [4], [12]]);
  });
});
