import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { extractArtifacts, formatHistory } from "../../src/extend/index.js";
import { fillTemplate } from "../../src/summary/format-history.js";
import { assistant, toolResult, user } from "../support/builders.js";

describe("formatHistory", () => {
  it("writes role, text, tool calls and tool results compactly", () => {
    const text = formatHistory([
      user("u", "list files"),
      assistant("a", "Listing.", [{ id: "c1", name: "bash", args: { command: "ls" } }]),
      toolResult("t", "c1", "a.py"),
    ]);
    expect(text).toBe('[user]\nlist files\n\n[assistant]\nListing.\n-> bash({"command":"ls"}) #c1\n\n[tool bash #c1]\na.py');
  });

  it("replaces images by a placeholder", () => {
    const message = new HumanMessage({ id: "u", content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] });
    expect(formatHistory([message])).toBe("[user]\nsee\n[image]");
  });

  it("keeps an image's http(s) URL in the summary prompt", () => {
    const message = new HumanMessage({ id: "u", content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "https://example.com/chart.png" } }] });
    expect(formatHistory([message])).toBe("[user]\nsee\n[image: https://example.com/chart.png]");
    // ...and in the artifact index every summary carries.
    expect(extractArtifacts([message]).urls).toEqual(["https://example.com/chart.png"]);
  });

  it("leaves out calls that have no result among the messages (pending calls)", () => {
    const text = formatHistory([user("u", "go"), assistant("a", "Working.", [{ id: "pending", name: "bash", args: {} }])]);
    expect(text).toBe("[user]\ngo\n\n[assistant]\nWorking.");
  });

  it("marks earlier summaries and can leave them out", () => {
    const summary = new HumanMessage({ id: "s", content: "old summary", response_metadata: { compaction: { strategy: "x", summary: true } } });
    expect(formatHistory([summary, user("u", "next")])).toBe("[earlier summary]\nold summary\n\n[user]\nnext");
    expect(formatHistory([summary, user("u", "next")], { omitSummaries: true })).toBe("[user]\nnext");
  });
});

describe("fillTemplate", () => {
  it("keeps $& and $1 in values verbatim", () => {
    expect(fillTemplate("A {history} B", { history: "price $& and $1 and $$" })).toBe("A price $& and $1 and $$ B");
  });

  it("does not fill placeholders inside inserted values", () => {
    expect(fillTemplate("{a} {b}", { a: "{b}", b: "x" })).toBe("{b} x");
  });

  it("leaves unknown placeholders", () => {
    expect(fillTemplate("{unknown}", {})).toBe("{unknown}");
  });
});
