/**
 * The PostgreSQL server for the integration tests: `scripts/start-postgres.sh` starts one and prints
 * its URL, which the tests read from LANGCHAIN_COMPACTION_POSTGRES_URL.
 *
 * Locally, without the variable, the PostgreSQL suites are skipped with a message saying how to start
 * the server. Under CI (CI=true) a missing server fails them: CI must test against the real thing.
 * Every test works in a schema of its own, dropped afterwards, so runs and tests never collide.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, it } from "vitest";

/** The environment variable holding the test server's connection string. */
export const POSTGRES_URL_VARIABLE = "LANGCHAIN_COMPACTION_POSTGRES_URL";

/** How to start the server, for the skip and failure messages. */
export const START_POSTGRES_HINT = `start one with: eval "$(bash scripts/start-postgres.sh)"  (installs Debian's postgresql if needed, listens on 127.0.0.1:54329, exports ${POSTGRES_URL_VARIABLE})`;

/** The test server's URL, when one is configured. */
export function postgresUrl(): string | undefined {
  const url = process.env[POSTGRES_URL_VARIABLE]?.trim();
  return url === undefined || url === "" ? undefined : url;
}

function underCi(): boolean {
  const ci = process.env["CI"]?.toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/**
 * `describe` for a suite that needs the PostgreSQL server: the suite runs with its URL when there is
 * one; otherwise it is skipped (locally) or fails (under CI), saying how to start the server.
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = postgresUrl();
  if (url !== undefined) {
    describe(name, () => body(url));
  } else if (underCi()) {
    describe(name, () => {
      it("has a PostgreSQL server to test against", () => {
        throw new Error(`CI=true but ${POSTGRES_URL_VARIABLE} is not set: the PostgreSQL suite must not be skipped under CI; ${START_POSTGRES_HINT}`);
      });
    });
  } else {
    console.warn(`[${name}] skipped: no PostgreSQL server (${POSTGRES_URL_VARIABLE} is not set); ${START_POSTGRES_HINT}`);
    describe.skip(`${name} (skipped: no PostgreSQL server; ${START_POSTGRES_HINT})`, () => body(""));
  }
}

/** A schema of one test's own on the server. */
export interface TestSchema {
  /** The schema's name (pass it as `schema` to PostgresSaver and PostgresStore). */
  readonly name: string;
  /** Drop the schema and everything in it. */
  drop(): Promise<void>;
}

/**
 * Create a fresh, uniquely named schema for one test.
 *
 * @example
 * const schema = await createTestSchema(url);
 * const checkpointer = PostgresSaver.fromConnString(url, { schema: schema.name });
 * // ...
 * await schema.drop();
 */
export async function createTestSchema(url: string, prefix = "compaction_test"): Promise<TestSchema> {
  const name = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${name}"`);
  } finally {
    await client.end();
  }
  return {
    name,
    async drop() {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      try {
        await dropper.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      } finally {
        await dropper.end();
      }
    },
  };
}
