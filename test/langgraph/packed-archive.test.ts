/**
 * The `compactionArchive` channel keeps each compaction's originals packed in one string: what a
 * checkpoint holds, what every reader gives back, and checkpoints written before (entries with a
 * `messages` array) read beside the packed ones.
 */
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  CompactionArchiveError,
  clearArchivedState,
  createCompactionNode,
  redactArchivedState,
  restoreHistory,
  toolResultHiding,
  type ArchivedCompaction,
  type PackedArchivedCompaction,
  type StateArchivedCompaction,
} from "../../src/index.js";
import { unpackArchive } from "../../src/extend/index.js";
import { exportThreadState } from "../../src/inspector/index.js";
import { compactionMiddleware } from "../../src/middleware/index.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";
import { user } from "../support/builders.js";
import { lookupOutput, lookupTool } from "./support/lookup-tool.js";
import { reactGraph } from "./support/react-graph.js";
import { scriptedModel } from "./support/scripted.js";

const ORIGINAL_IDS = ["h1", "a1", "t-c1", "a2", "t-c2", "a3", "t-c3", "final"];

/** The ids of the originals an entry holds, read through `unpackArchive`. */
const originalIds = (entry: StateArchivedCompaction) => unpackArchive(entry).messages.map(({ message }) => message.data["id"]);

describe("the compactionArchive channel", () => {
  it("createAgent + MemorySaver: each compaction's originals are one string in the checkpoint, and restoreHistory gives them all back", async () => {
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool()],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "packed" } };
    await agent.invoke({ messages: [user("h1")] }, config);
    const values = (await agent.graph.getState(config)).values as { compactionArchive: StateArchivedCompaction[]; messages: never[] };
    const withOriginals = values.compactionArchive.filter((entry) => "packed" in entry);
    expect(withOriginals.map((entry) => typeof (entry as { packed?: unknown }).packed)).toEqual(["string", "string"]);
    expect(withOriginals.every((entry) => !("messages" in entry))).toBe(true);
    expect(withOriginals.flatMap(originalIds)).toEqual(["t-c1", "t-c2"]);
    const restored = await restoreHistory(values);
    expect(restored.map((message) => message.id)).toEqual(ORIGINAL_IDS);
    expect(restored.filter((message) => message.type === "tool").map((message) => message.content)).toEqual(["c1", "c2", "c3"].map(lookupOutput));
  });

  it("reads a checkpoint's unpacked entries (as written before) beside packed ones: restore, export, redaction, erasure", async () => {
    const graph = reactGraph({
      model: scriptedModel(3),
      tools: [lookupTool()],
      compaction: [createCompactionNode(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "mixed" } };
    await graph.invoke({ messages: [user("h1")] }, config);
    const packed = (await graph.getState(config)).values.compactionArchive as StateArchivedCompaction[];
    const [first, second] = packed.filter((entry) => "packed" in entry);
    // The first compaction's entry in the shape an older checkpoint holds: a plain `messages` array.
    const old: ArchivedCompaction = JSON.parse(JSON.stringify(unpackArchive(first!)));
    await graph.updateState(config, { compactionArchive: [old] });
    const values = (await graph.getState(config)).values;
    const entries = values.compactionArchive as StateArchivedCompaction[];
    expect(entries.map((entry) => ["messages" in entry, "packed" in entry])).toContainEqual([true, false]);
    expect(entries.find((entry) => entry.compactionId === second!.compactionId)).toHaveProperty("packed");

    expect((await restoreHistory(values)).map((message) => message.id)).toEqual(ORIGINAL_IDS);
    const exported = await exportThreadState(values, "mixed");
    expect(exported.archives.filter((archive) => archive.messages.length > 0).map((archive) => archive.messages.map(({ message }) => message.data["id"]))).toEqual([["t-c1"], ["t-c2"]]);

    const redaction = redactArchivedState(values, ["t-c1", "t-c2"]);
    expect(redaction.compactionArchive.map((entry) => [entry.compactionId, "packed" in entry])).toEqual([
      [old.compactionId, true],
      [second!.compactionId, true],
    ]);
    await graph.updateState(config, redaction);
    const redacted = await restoreHistory((await graph.getState(config)).values);
    expect(redacted.filter((message) => message.type === "tool").map((message) => message.content)).toEqual(["[redacted]", "[redacted]", lookupOutput("c3")]);

    const cleared = clearArchivedState((await graph.getState(config)).values);
    expect(cleared.compactionArchive.map((entry) => [entry.compactionId, entry.messages.length])).toEqual([
      [old.compactionId, 0],
      [second!.compactionId, 0],
    ]);
  });

  it("compresses a compaction's originals when that is shorter, and gives back the exact text: non-ASCII, surrogate pairs, quotes", async () => {
    const text = (callId: string) => Array.from({ length: 40 }, (_, line) => `${callId} line ${line}: "naïve" café 北京 😀 \\ ${(line * 7919) % 1000}`).join("\n");
    const contents = { c1: text("c1"), c2: text("c2") };
    const agent = createAgent({
      model: scriptedModel(3),
      tools: [lookupTool(contents)],
      middleware: [compactionMiddleware(toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 1 }))],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "compressed" } };
    await agent.invoke({ messages: [user("h1")] }, config);
    const values = (await agent.graph.getState(config)).values as { compactionArchive: StateArchivedCompaction[]; messages: never[] };
    const entries = values.compactionArchive.filter((entry): entry is PackedArchivedCompaction => "packed" in entry);
    expect(entries.map((entry) => entry.encoding)).toEqual(["deflate", "deflate"]);
    // Shorter than the JSON it stands for, and base64 (nothing a JSON string escapes).
    expect(entries.map((entry) => entry.packed.length < JSON.stringify(unpackArchive({ ...entry, record: undefined })).length)).toEqual([true, true]);
    expect(entries.map((entry) => /^[A-Za-z0-9+/]*=*$/.test(entry.packed))).toEqual([true, true]);
    const restored = await restoreHistory(values);
    expect(restored.filter((message) => message.type === "tool").map((message) => message.content)).toEqual([contents.c1, contents.c2, lookupOutput("c3")]);
  });

  it("reads an entry packed as plain JSON (as written before compression) and keeps a short one uncompressed", async () => {
    const message = { type: "tool", data: { id: "t1", content: "short", tool_call_id: "c1", name: "lookup" } };
    const entry: PackedArchivedCompaction = { compactionId: "k0", packed: JSON.stringify({ messages: [{ index: 3, message }] }), dropped: [] };
    expect(unpackArchive(entry).messages.map(({ message: original }) => original.data["content"])).toEqual(["short"]);
    const [repacked] = redactArchivedState({ compactionArchive: [entry] }, ["t1"]).compactionArchive as PackedArchivedCompaction[];
    expect(repacked!.encoding).toBeUndefined();
    expect(JSON.parse(repacked!.packed).messages.map(({ message: original }: { message: { data: { content: string } } }) => original.data.content)).toEqual(["[redacted]"]);
  });

  it("unpackArchive gives an unpacked entry as it is, and names the compaction of a packed one that does not read", async () => {
    const plain: ArchivedCompaction = { compactionId: "k1", messages: [], dropped: [] };
    expect(unpackArchive(plain)).toBe(plain);
    const error = await caught(() => unpackArchive({ compactionId: "k2", packed: "{not json", dropped: [] }));
    expect(CompactionArchiveError.isInstance(error) && error.compactionId).toBe("k2");
    const notArchive = await caught(() => unpackArchive({ compactionId: "k3", packed: "[1]", dropped: [] }));
    expect((notArchive as Error).message).toContain("compaction k3");
    const corrupt = await caught(() => unpackArchive({ compactionId: "k4", packed: "bm90IGRlZmxhdGU=", encoding: "deflate", dropped: [] }));
    expect(CompactionArchiveError.isInstance(corrupt) && [corrupt.compactionId, corrupt.message.includes("not valid compressed JSON")]).toEqual(["k4", true]);
  });
});
