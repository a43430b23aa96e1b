/** What the recall tool's `find` returns: matching lines under their headers, the newest message holding each text first, long lines cut safely. */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { findBlocks, findLines, findTerms } from "../../src/langgraph/recall-find.js";

describe("findLines", () => {
  const user = new HumanMessage({ id: "u", content: "first line\nthe Needle here\nlast line" });
  const call = new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "grep_tool", args: { q: "x" } }] });
  const result = new ToolMessage({ id: "t", tool_call_id: "c1", name: "grep_tool", content: "no match" });

  it("keeps the matching lines of each message under its header: first the newest message holding each text, then the older matches, newest first; nothing for no match", () => {
    // The tool result is the newest to hold grep_tool, the user message the newest to hold needle; the call holds grep_tool too, older.
    expect(findBlocks([user, call, result], findTerms("needle | GREP_TOOL"))).toEqual({ newest: "[tool grep_tool #c1]\n…\n\n[user]\nthe Needle here", older: '[assistant]\n-> grep_tool({"q":"x"}) #c1' });
    expect(findLines([user, call, result], findTerms("needle | GREP_TOOL"))).toBe('[tool grep_tool #c1]\n…\n\n[user]\nthe Needle here\n\n[assistant]\n-> grep_tool({"q":"x"}) #c1');
    expect(findLines([user, call, result], findTerms("grep_tool"))).toBe('[tool grep_tool #c1]\n…\n\n[assistant]\n-> grep_tool({"q":"x"}) #c1');
    expect(findLines([user], findTerms("absent"))).toBe("");
    expect(findTerms(" a | |B ")).toEqual(["a", "b"]);
  });

  it("cuts a long line to 150 characters each side of its first match, never inside a surrogate pair", () => {
    const long = new ToolMessage({ id: "l", tool_call_id: "c2", name: "cat", content: `${"😀".repeat(200)}MATCH${"😀".repeat(200)}` });
    const text = findLines([long], findTerms("match"));
    const shown = text.split("\n")[1]!;
    expect(shown.startsWith("…") && shown.endsWith("…")).toBe(true);
    expect(shown.slice(1, -1)).toBe(`${"😀".repeat(75)}MATCH${"😀".repeat(73)}`);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u.test(shown)).toBe(false);
  });
});
