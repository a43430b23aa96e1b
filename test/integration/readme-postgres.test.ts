/**
 * The "Running many workers on PostgreSQL" example of docs/langgraph.md (`postgres-workers`), run as
 * written against the test server, in a database of its own (the example uses the default `public`
 * schema), printing what examples/readme-output/postgres-workers.txt holds.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { readmeExamples } from "../../scripts/readme-examples.mjs";
import { describeWithPostgres } from "../support/postgres.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The example, as the docs show it (read when the test runs). */
function example() {
  const found = readmeExamples(root).find((each) => each.name === "postgres-workers");
  if (!found) throw new Error("no postgres-workers example in README.md or docs/*.md");
  return found;
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

describeWithPostgres("docs: Running many workers on PostgreSQL", (url) => {
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
    const { code, expectedPath } = example();
    // Inside node_modules so that its imports resolve; a directory per clone, since node_modules may be shared.
    const directory = join(root, "node_modules", ".cache", `readme-examples-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`);
    mkdirSync(directory, { recursive: true });
    const file = join(directory, "postgres-workers.mts");
    writeFileSync(file, code.replaceAll('"langchain-compaction"', JSON.stringify(join(root, "src", "index.ts"))));
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await import(pathToFileURL(file).href);
    expect(log.mock.calls.map((args) => `${format(...args)}\n`).join("")).toBe(readFileSync(expectedPath, "utf8"));
  });
});
