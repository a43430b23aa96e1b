import { describe, expect, it } from "vitest";
import { main } from "../../examples/create-agent.js";
import { compactionMarkerOf } from "../../src/index.js";

describe("examples/create-agent.ts", () => {
  it("runs offline: hides the two oldest results, logs both compactions and restores everything", async () => {
    const printed: string[] = [];
    const summary = await main({ useOpenAI: false, print: (line) => printed.push(line) });
    expect({
      printed,
      messages: summary.messages,
      hiddenResults: summary.hiddenResults,
      replaced: summary.log.map((record) => record.replacedIds),
      restored: summary.restored.map((message) => [message.id, compactionMarkerOf(message)?.hidden ?? false]),
    }).toEqual({
      printed: [
        "compaction compacted: toolResultHiding hid 1 result(s), 1409 -> 1022 tokens",
        "compaction compacted: toolResultHiding hid 1 result(s), 1455 -> 1068 tokens",
        "state: 10 messages, 2 tool result(s) hidden; restored history: 10 messages, none hidden",
      ],
      messages: 10,
      hiddenResults: 2,
      replaced: [[summary.restored[2]!.id], [summary.restored[4]!.id]],
      restored: [
        ["question", false],
        ["ai-1", false],
        [summary.restored[2]!.id, false],
        ["ai-2", false],
        [summary.restored[4]!.id, false],
        ["ai-3", false],
        [summary.restored[6]!.id, false],
        ["ai-4", false],
        [summary.restored[8]!.id, false],
        ["ai-answer", false],
      ],
    });
    expect(summary.restored[2]!.content).toBe("# billing\n" + "Policy details about billing. ".repeat(80));
  });
});
