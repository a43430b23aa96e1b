/**
 * A summary message's artifact index: the index's lists are ranked once, however many summary texts
 * are placed beside it (each text only changes which entries it names already).
 */
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/index.js";
import { extractArtifacts } from "../../src/messages/artifact-index.js";
import { artifactRankings, renderArtifacts } from "../../src/messages/artifact-render.js";
import { SummaryMessages } from "../../src/summary/summary-message.js";
import { assistant, toolResult } from "../support/builders.js";

describe("the artifact index beside summary texts", () => {
  it("is ranked once for several texts, each text's message leaving out what it names", async () => {
    const messages = Array.from({ length: 120 }, (_, n) => [assistant(`a${n}`, "", [{ id: `c${n}`, name: "read_file", args: { path: `src/module_${n}/file_${n}.ts` } }]), toolResult(`t${n}`, `c${n}`, `contents of file ${n}`, "read_file")]).flat();
    const artifacts = extractArtifacts(messages);
    const summaries = new SummaryMessages("fullSummary", "Summary of the conversation so far:", createTokenCounter({ mode: "approximate" }), 600);
    const before = artifactRankings.count;
    const texts = ["The agent read src/module_119/file_119.ts first.", "The agent read src/module_118/file_118.ts and src/module_117/file_117.ts.", "Nothing named."];
    const made = [];
    for (const text of texts) made.push(await summaries.countedMessageOf({ text, artifacts, summaryModel: "none" }, messages));
    expect(artifactRankings.count - before).toBe(1);
    const contents = made.map((message) => (typeof message === "string" ? message : String(message.content)));
    // The whole index does not fit: each message shows part of it, without the files its text names.
    expect(renderArtifacts(artifacts).length).toBeGreaterThan(contents[2]!.length);
    expect(contents[0]!.split("src/module_119/file_119.ts").length - 1).toBe(1);
    expect(contents[1]!.split("src/module_118/file_118.ts").length - 1).toBe(1);
    expect(contents[2]).toContain("src/module_119/file_119.ts");
  });
});
