/**
 * Erasing and redacting a compacted `createAgent` thread on PostgreSQL: `PostgresStore` (whose prefix
 * search matches by text: thread `t1`'s search also finds `t10`'s items) and `PostgresSaver`, each
 * test in a schema of its own. The shared suite of test/langgraph/support/erasure-suite.ts. Without
 * a server it is skipped locally and fails under CI (see test/support/postgres.ts).
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { afterAll } from "vitest";
import { erasureSuite } from "../langgraph/support/erasure-suite.js";
import { createTestSchema, describeWithPostgres, type TestSchema } from "../support/postgres.js";

describeWithPostgres("PostgresStore and PostgresSaver", (url) => {
  const schemas: TestSchema[] = [];
  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
  });

  erasureSuite("PostgresStore and PostgresSaver", async () => {
    const schema = await createTestSchema(url);
    schemas.push(schema);
    const checkpointer = PostgresSaver.fromConnString(url, { schema: schema.name });
    const store = PostgresStore.fromConnString(url, { schema: schema.name });
    await checkpointer.setup();
    await store.setup();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      store,
      checkpointer,
      async threadRows(threadId) {
        let rows = 0;
        for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
          rows += Number((await client.query(`SELECT count(*) AS n FROM "${schema.name}".${table} WHERE thread_id = $1`, [threadId])).rows[0].n);
        }
        return rows;
      },
      async close() {
        await client.end();
        await checkpointer.end();
        await store.stop();
      },
    };
  });
});
