import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../src/index.js";
import { messageText } from "../../src/extend/index.js";
import { MAX_CONTENT_DEPTH } from "../../src/tokens/content-text.js";

const encoder = new Tiktoken(o200k);
const tokens = (text: string) => encoder.encode(text, [], []).length;
/** Format overhead of one message: 3 per message + 1 for the role. */
const OVERHEAD = 4;
const IMAGE = 85;

const exact = createTokenCounter({ calibrate: false });
const approximate = createTokenCounter({ mode: "approximate", calibrate: false });
const human = (content: unknown) => new HumanMessage({ content: content as never });

const RESULT_TEXT = "total 3\n-rw-r--r-- 1 me me 120 README.md\n-rw-r--r-- 1 me me 980 app.py";
const DOC_TEXT = "The grass is green. The sky is blue.";

describe("exact counts of every content block kind", () => {
  it("counts a text block as the same string", async () => {
    const asString = await exact.countMessage(human("hello world"));
    expect(await exact.countMessage(human([{ type: "text", text: "hello world" }]))).toBe(asString);
    expect(asString).toBe(OVERHEAD + tokens("hello world"));
  });

  it("counts a tool_result block's id and string content", async () => {
    const message = human([{ type: "tool_result", tool_use_id: "toolu_1", content: RESULT_TEXT }]);
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens("toolu_1") + tokens(RESULT_TEXT));
  });

  it("counts a tool_result block's array content, nested blocks included", async () => {
    const message = human([
      { type: "text", text: "here is the output" },
      {
        type: "tool_result",
        tool_use_id: "toolu_2",
        content: [
          { type: "text", text: RESULT_TEXT },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          { type: "search_result", title: "Docs", source: "https://example.com/docs", content: [{ type: "text", text: DOC_TEXT }] },
        ],
      },
    ]);
    const expected =
      OVERHEAD + tokens("here is the output") + tokens("toolu_2") + tokens(RESULT_TEXT) + IMAGE + tokens("Docs") + tokens("https://example.com/docs") + tokens(DOC_TEXT);
    expect(await exact.countMessage(message)).toBe(expected);
  });

  it("counts a document with a text source, its title and context", async () => {
    const message = human([
      { type: "document", source: { type: "text", media_type: "text/plain", data: DOC_TEXT }, title: "Colours", context: "A primer" },
    ]);
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens("Colours") + tokens("A primer") + tokens(DOC_TEXT));
  });

  it("counts a document with a content source", async () => {
    const message = human([{ type: "document", source: { type: "content", content: [{ type: "text", text: DOC_TEXT }, { type: "text", text: "More." }] } }]);
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens(DOC_TEXT) + tokens("More."));
  });

  it("counts a base64 PDF document, a URL document and a file by reference as fixed estimates", async () => {
    const message = human([
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK".repeat(500) } },
      { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
      { type: "file", fileId: "file_123" },
    ]);
    expect(await exact.countMessage(message)).toBe(OVERHEAD + 3 * IMAGE);
  });

  it("counts the text of a v0 plain-text data block and of a v1 text-plain block", async () => {
    const message = human([
      { type: "file", source_type: "text", text: DOC_TEXT, mime_type: "text/plain" },
      { type: "text-plain", text: RESULT_TEXT, title: "ls" },
    ]);
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens(DOC_TEXT) + tokens(RESULT_TEXT) + tokens("ls"));
  });

  it("counts thinking, redacted thinking, reasoning (text or summary) and refusal text", async () => {
    const message = new AIMessage({
      content: [
        { type: "thinking", thinking: "Let me think.", signature: "sig" },
        { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
        { type: "reasoning", reasoning: "Because." },
        { type: "reasoning", summary: [{ type: "summary_text", text: "First." }, { type: "summary_text", text: "Then." }] },
        { type: "refusal", refusal: "I can't." },
        { type: "text", text: "Answer." },
      ],
    });
    const expected =
      OVERHEAD + tokens("Let me think.") + tokens("EmwKAhgBEgy3va3pzix") + tokens("Because.") + tokens("First.\nThen.") + tokens("I can't.") + tokens("Answer.");
    expect(await exact.countMessage(message)).toBe(expected);
  });

  it("counts a tool_use block once when tool_calls lists it, and a server_tool_use block that it does not", async () => {
    const input = { query: "weather in Paris" };
    const message = new AIMessage({
      content: [
        { type: "text", text: "Searching." },
        { type: "tool_use", id: "toolu_1", name: "search", input },
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input },
        { type: "input_json_delta", input: '{"query": "weather', index: 1 },
      ],
      tool_calls: [{ id: "toolu_1", name: "search", args: input, type: "tool_call" }],
    });
    const call = 3 + tokens("search") + tokens(JSON.stringify(input)) + tokens("toolu_1");
    const serverCall = tokens("web_search") + tokens(JSON.stringify(input)) + tokens("srvtoolu_1");
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens("Searching.") + call + serverCall);
  });

  it("counts a compaction block, an OpenAI function_call_output and the JSON of any other block", async () => {
    const webSearch = { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", title: "Paris", url: "https://example.com" }] };
    const message = human([
      { type: "compaction", content: "Earlier: the user asked about Paris." },
      { type: "function_call_output", call_id: "call_9", output: "18 degrees" },
      webSearch,
    ]);
    const expected = OVERHEAD + tokens("Earlier: the user asked about Paris.") + tokens("call_9") + tokens("18 degrees") + tokens(JSON.stringify(webSearch));
    expect(await exact.countMessage(message)).toBe(expected);
  });

  it("counts a tool_result block inside a ToolMessage with the message's call id", async () => {
    const message = new ToolMessage({ tool_call_id: "toolu_3", content: [{ type: "tool_result", tool_use_id: "toolu_3", content: RESULT_TEXT }] as never });
    expect(await exact.countMessage(message)).toBe(OVERHEAD + 2 * tokens("toolu_3") + tokens(RESULT_TEXT));
  });
});

describe("approximate counts of content blocks", () => {
  it("counts nested tool_result and document text by characters / 4", async () => {
    const message = human([
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: RESULT_TEXT }] },
      { type: "document", source: { type: "text", media_type: "text/plain", data: DOC_TEXT } },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ]);
    const characters = "toolu_1".length + RESULT_TEXT.length + DOC_TEXT.length;
    expect(await approximate.countMessage(message)).toBe(OVERHEAD + IMAGE + Math.ceil(characters / 4));
  });
});

describe("a 63 000-token tool_result in a HumanMessage", () => {
  // " hello" is one o200k token: 63 000 of them are 63 000 tokens.
  const output = " hello".repeat(63_000);
  const message = human([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: output }] }]);

  it("counts 63 000 tokens and the overhead (exact)", async () => {
    expect(await exact.countMessage(message)).toBe(OVERHEAD + tokens("toolu_1") + 63_000);
  });

  it("counts its characters / 4 (approximate)", async () => {
    expect(await approximate.countMessage(message)).toBe(OVERHEAD + Math.ceil(("toolu_1".length + output.length) / 4));
  });
});

describe("odd content", () => {
  const odd: [string, unknown, number][] = [
    ["an object instead of an array", { type: "text", text: "hello" }, tokens("hello")],
    ["null, numbers and blocks with no text", [null, undefined, 5, { type: "text" }, { type: "tool_result" }, { type: "document" }], IMAGE],
    ["a block with no type (its JSON)", [{ foo: "bar" }], tokens('{"foo":"bar"}')],
    ["a document whose source is not an object", [{ type: "document", source: "nope" }], IMAGE],
    ["a tool_result whose content is a number", [{ type: "tool_result", tool_use_id: 7, content: 42 }], 0],
  ];

  it.each(odd)("counts %s without throwing", async (_label, content, textTokens) => {
    expect(await exact.countMessage(human(content))).toBe(OVERHEAD + textTokens);
    expect(() => messageText(human(content))).not.toThrow();
  });

  it("counts a block too deep to walk as its JSON, and a cyclic block as a fixed estimate", async () => {
    const nest = (levels: number) => {
      let value: unknown = "leaf";
      for (let level = 0; level < levels; level++) value = [value];
      return value;
    };
    // Arrays at depth 0..MAX_CONTENT_DEPTH are walked; the one below is counted as its JSON.
    const tooDeep = nest(40 - (MAX_CONTENT_DEPTH + 1));
    expect(await exact.countMessage(human(nest(40)))).toBe(OVERHEAD + tokens(JSON.stringify(tooDeep)));
    expect(await exact.countMessage(human(nest(MAX_CONTENT_DEPTH)))).toBe(OVERHEAD + tokens("leaf"));
    const cyclic: Record<string, unknown> = { type: "mystery" };
    cyclic["self"] = cyclic;
    expect(await exact.countMessage(human([cyclic]))).toBe(OVERHEAD + IMAGE);
  });

  it("counts tool calls with odd arguments without throwing", async () => {
    const message = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args: { big: 1n } as never, type: "tool_call" }] });
    expect(await exact.countMessage(message)).toBe(OVERHEAD + 3 + tokens("f") + tokens("c1"));
  });
});

describe("messageText", () => {
  it("reads the text nested in tool results, documents and search results", () => {
    const message = human([
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "exit 0" }] },
      { type: "document", source: { type: "text", media_type: "text/plain", data: DOC_TEXT }, title: "Colours" },
      { type: "search_result", title: "Docs", source: "https://example.com", content: [{ type: "text", text: "found it" }] },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
      { type: "thinking", thinking: "hidden" },
    ]);
    expect(messageText(message)).toBe(`exit 0\n${DOC_TEXT}\nfound it\n[document]\n[image: https://example.com/a.png]\n[thinking]`);
  });

  it("keeps the http(s) URL of an image, file or document in every shape, never inline data", () => {
    const message = human([
      { type: "image_url", image_url: "https://example.com/1.png" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      { type: "image", source_type: "url", url: "https://example.com/2.png" },
      { type: "image", url: "http://example.com/3.png" },
      { type: "image", source_type: "base64", data: "AAAA", mime_type: "image/png" },
      { type: "input_image", image_url: "https://example.com/4.png" },
      { type: "input_file", file_url: "https://example.com/report.pdf" },
      { type: "image", source: { type: "url", url: "https://example.com/5.png" } },
      { type: "document", source: { type: "url", url: "https://example.com/paper.pdf" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } },
    ]);
    expect(messageText(message).split("\n")).toEqual([
      "[image: https://example.com/1.png]",
      "[image]",
      "[image: https://example.com/2.png]",
      "[image: http://example.com/3.png]",
      "[image]",
      "[image: https://example.com/4.png]",
      "[input_file: https://example.com/report.pdf]",
      "[image: https://example.com/5.png]",
      "[document: https://example.com/paper.pdf]",
      "[document]",
    ]);
  });

  it("reads object content and skips null blocks", () => {
    expect(messageText(human({ type: "text", text: "hello" }))).toBe("hello");
    expect(messageText(human([null, { type: "text", text: "a" }, 3, { type: "text" }]))).toBe("a");
  });

  it("leaves tool-call blocks out", () => {
    const message: BaseMessage = new AIMessage({
      content: [{ type: "text", text: "Running." }, { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } }],
      tool_calls: [{ id: "toolu_1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
    });
    expect(messageText(message)).toBe("Running.");
  });
});

describe("what ChatAnthropic sends is counted", () => {
  type Payload = { messages: { content: unknown }[] };
  const converterPath = new URL("../../node_modules/@langchain/anthropic/dist/utils/message_inputs.js", import.meta.url).href;
  const anthropicPayload = async (messages: BaseMessage[]): Promise<Payload> =>
    ((await import(converterPath)) as { _convertMessagesToAnthropicPayload: (messages: BaseMessage[]) => Payload })._convertMessagesToAnthropicPayload(messages);

  /** Every text the payload carries: `text`, `thinking`, string `content` and text-source `data`. */
  function sentTexts(value: unknown, into: string[] = []): string[] {
    if (Array.isArray(value)) for (const item of value) sentTexts(item, into);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      for (const [key, child] of Object.entries(record)) {
        const textField = key === "text" || key === "thinking" || key === "content" || (key === "data" && record["type"] === "text");
        if (typeof child === "string" && textField) into.push(child);
        else sentTexts(child, into);
      }
    }
    return into;
  }

  const cases: [string, BaseMessage, string[]][] = [
    [
      "a HumanMessage with tool_result blocks",
      human([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: RESULT_TEXT }] }]),
      [RESULT_TEXT],
    ],
    ["a ToolMessage with array content", new ToolMessage({ tool_call_id: "toolu_1", content: [{ type: "text", text: RESULT_TEXT }] }), [RESULT_TEXT]],
    [
      "a HumanMessage with documents and a search result",
      human([
        { type: "document", source: { type: "text", media_type: "text/plain", data: DOC_TEXT } },
        { type: "document", source: { type: "content", content: [{ type: "text", text: RESULT_TEXT }] } },
        { type: "search_result", title: "Docs", source: "https://example.com", content: [{ type: "text", text: "found it" }] },
      ]),
      [DOC_TEXT, RESULT_TEXT, "found it"],
    ],
    [
      "an AIMessage with thinking and a tool call",
      new AIMessage({
        content: [
          { type: "thinking", thinking: "Let me list the files.", signature: "sig" },
          { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
        ],
        tool_calls: [{ id: "toolu_1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      }),
      ["Let me list the files."],
    ],
  ];

  it.each(cases)("counts at least the text of %s", async (_label, message, expectedTexts) => {
    const payload = await anthropicPayload([message]);
    const texts = sentTexts(payload.messages.map((entry) => entry.content));
    const sent = texts.reduce((sum, text) => sum + tokens(text), 0);
    expect(texts).toEqual(expectedTexts);
    expect(await exact.countMessage(message)).toBeGreaterThanOrEqual(OVERHEAD + sent);
  });
});
