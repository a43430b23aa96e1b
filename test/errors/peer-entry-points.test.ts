// An entry point whose optional peer is missing says what to install, before its modules load it.
import { afterEach, describe, expect, it } from "vitest";
import { MissingPackageError } from "../../src/index.js";
import { setPackageResolver } from "../../src/peers.js";
import { caught } from "../support/errors.js";

afterEach(() => setPackageResolver(undefined));

describe("an entry point without its optional peer", () => {
  it.each([
    ["langchain-compaction/sqlite", "../../src/store/peers.js", "@langchain/langgraph-checkpoint-sqlite"],
    ["langchain-compaction/middleware", "../../src/middleware/peers.js", "langchain"],
  ])("%s throws MissingPackageError with the npm install line", async (entry, guard, peer) => {
    setPackageResolver((name) => name !== peer);
    const error = await caught(() => import(`${guard}?missing`));
    expect(MissingPackageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`${entry} needs ${peer} (an optional peer dependency), which is not installed: npm install ${peer}`);
  });
});
