import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, createTokenCounter } from "../src/index.js";
import { encodingForModel } from "../src/extend/index.js";
import { caught } from "./support/errors.js";

const encoder = new Tiktoken(o200k);
const tokens = (text: string) => encoder.encode(text, [], []).length;

describe("encodingForModel", () => {
  it("chooses o200k_base for current OpenAI models and unknown models", () => {
    expect(["gpt-4o-mini", "gpt-4.1", "gpt-5", "o3-mini", "openai:gpt-4o", "claude-sonnet-4-5"].map(encodingForModel)).toEqual([
      "o200k_base",
      "o200k_base",
      "o200k_base",
      "o200k_base",
      "o200k_base",
      "o200k_base",
    ]);
  });

  it("chooses cl100k_base for gpt-4 and gpt-3.5", () => {
    expect(["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo"].map(encodingForModel)).toEqual(["cl100k_base", "cl100k_base", "cl100k_base"]);
  });

  it("gives the counter the model's encoding", () => {
    expect(createTokenCounter({ model: "gpt-4" }).encoding).toBe("cl100k_base");
    expect(createTokenCounter({ mode: "approximate" }).encoding).toBeUndefined();
  });
});

describe("exact counts", () => {
  const counter = createTokenCounter({ calibrate: false });

  it("counts a message as format overhead plus its text", async () => {
    // 3 per message + 1 for the role
    expect(await counter.countMessage(new HumanMessage("hello world"))).toBe(4 + tokens("hello world"));
  });

  it("adds the reply priming once per request", async () => {
    const messages = [new HumanMessage("hello world"), new HumanMessage("again")];
    expect(await counter.countMessages(messages)).toBe(4 + tokens("hello world") + 4 + tokens("again") + 3);
  });

  it("counts tool-call names, arguments and ids", async () => {
    const message = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "bash", args: { command: "ls -la" }, type: "tool_call" }] });
    const expected = 4 + 3 + tokens("bash") + tokens(JSON.stringify({ command: "ls -la" })) + tokens("call_1");
    expect(await counter.countMessage(message)).toBe(expected);
  });

  it("counts a tool result's call id and name", async () => {
    const message = new ToolMessage({ content: "ok", tool_call_id: "call_1", name: "bash" });
    expect(await counter.countMessage(message)).toBe(4 + 1 + tokens("ok") + tokens("call_1") + tokens("bash"));
  });

  it("counts the text parts of content arrays and a fixed estimate per image", async () => {
    const message = new HumanMessage({
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect(await counter.countMessage(message)).toBe(4 + tokens("what is this?") + 85);
  });

  it("takes the image estimate from options", async () => {
    const custom = createTokenCounter({ nonTextPartTokens: 1000 });
    const message = new HumanMessage({ content: [{ type: "image_url", image_url: { url: "https://example.invalid/x.png" } }] });
    expect(await custom.countMessage(message)).toBe(4 + 1000);
  });

  it("counts special-token text as ordinary text instead of throwing", async () => {
    expect(await counter.countText("<|endoftext|>")).toBe(tokens("<|endoftext|>"));
  });

  it("counts a long run of non-space characters exactly as js-tiktoken", async () => {
    const base64 = Buffer.from(Array.from({ length: 6_000 }, (_, position) => (position * 7919) % 256)).toString("base64");
    expect(await counter.countText(base64)).toBe(tokens(base64));
    expect(await counter.countText("x".repeat(1_000))).toBe(tokens("x".repeat(1_000)));
  });

  it("tokenizes a message once: the count is cached by message object", async () => {
    const message = new HumanMessage("short");
    const first = await counter.countMessage(message);
    message.content = "a much longer text than before, which would count differently";
    expect(await counter.countMessage(message)).toBe(first);
  });

  it("cuts a text to a token budget", async () => {
    const text = "one two three four five six seven eight nine ten";
    const cut = await counter.truncateText(text, 4);
    expect(tokens(cut)).toBe(4);
    expect(text.startsWith(cut)).toBe(true);
  });
});

describe("approximate counts", () => {
  const counter = createTokenCounter({ mode: "approximate", calibrate: false });

  it("counts characters / 4 plus the format overhead", async () => {
    expect(await counter.countMessage(new HumanMessage("abcdefghi"))).toBe(4 + 3);
  });

  it("cuts a text to budget * 4 characters", async () => {
    expect(await counter.truncateText("abcdefghijkl", 2)).toBe("abcdefgh");
  });
});

describe("calibration from provider usage", () => {
  const history = () => [
    new HumanMessage({ id: "u1", content: "list the files" }),
    new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 500, output_tokens: 20, total_tokens: 520 },
    }),
    new ToolMessage({ id: "t1", content: "README.md src test", tool_call_id: "c1" }),
  ];

  it("takes the prefix the provider counted from usage_metadata and estimates the rest", async () => {
    const counter = createTokenCounter();
    const messages = history();
    const perMessage = await Promise.all(messages.map((message) => counter.countMessage(message)));
    expect(await counter.countMessages(messages)).toBe(500 + perMessage[1]! + perMessage[2]!);
  });

  it("keeps the provider's offset when the prefix is compacted later", async () => {
    const counter = createTokenCounter();
    const messages = history();
    const measured = await counter.measure(messages);
    const shorter = [messages[1]!, messages[2]!];
    const after = await counter.measure(shorter);
    expect(after.calibrationOffset).toBe(measured.calibrationOffset);
    expect(after.total).toBe(after.estimated + measured.calibrationOffset);
  });

  it("ignores a provider count below the estimate: that call saw another prefix", async () => {
    const counter = createTokenCounter();
    const messages = history();
    const compactedView = new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [{ id: "c1", name: "bash", args: { command: "ls" }, type: "tool_call" }],
      usage_metadata: { input_tokens: 1, output_tokens: 20, total_tokens: 21 },
    });
    const measured = await counter.measure([messages[0]!, compactedView, messages[2]!]);
    expect(measured.calibrationAnchors).toEqual([]);
    expect(measured.total).toBe(measured.estimated);
  });

  it("can be switched off", async () => {
    const counter = createTokenCounter({ calibrate: false });
    const measured = await counter.measure(history());
    expect(measured.calibrationOffset).toBe(0);
    expect(measured.total).toBe(measured.estimated);
  });
});

describe("options", () => {
  it("rejects an unknown mode, naming the option", async () => {
    const error = await caught(() => createTokenCounter({ mode: "fast" as "exact" }));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).option).toBe("mode");
  });

  it("rejects an unknown option by name", () => {
    expect(() => createTokenCounter({ modle: "gpt-4o" } as never)).toThrowError(
      "createTokenCounter: invalid option `modle`: expected one of the options model, encoding, mode, calibrate, nonTextPartTokens; got an unknown option (did you mean model?)",
    );
  });
});
