/**
 * Runs examples/lcel-chat-history.ts as a user would: offline (no OPENAI_API_KEY), and with a key
 * against a local OpenAI-compatible server (a real ChatOpenAI, its base URL from OPENAI_BASE_URL).
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("examples/lcel-chat-history.ts", () => {
  it("runs offline and prints the compacted turns, the kept history and the compactions", async () => {
    const { OPENAI_API_KEY: _key, ...env } = process.env;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", join(root, "examples", "lcel-chat-history.ts")], { cwd: root, env });
    expect(stdout.split("\n")).toEqual([
      "turn 1: (scripted) 2 messages in view; you asked: My name is Ada. Which port does the staging API listen on?",
      "turn 2: (scripted) 4 messages in view; you asked: And the production API?",
      "turn 3: (scripted) 6 messages in view; you asked: Which of the two uses TLS?",
      "turn 4: (scripted) 6 messages in view; you asked: Remind me of the staging port.",
      "kept: 8 messages; view: 4 messages",
      "compaction ada-4: slidingWindow truncated, 6 -> 4 messages, removed ada-1, reply-1",
      "compaction ada-6: slidingWindow truncated, 6 -> 4 messages, removed ada-2, reply-2",
      "",
    ]);
  });
});

describe("examples/lcel-chat-history.ts with OPENAI_API_KEY", () => {
  it("sends ChatOpenAI's requests the compacted history", async () => {
    const received: { role: string; content: string }[][] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const { messages } = JSON.parse(body) as { messages: { role: string; content: string }[] };
        received.push(messages.map(({ role, content }) => ({ role, content })));
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({
            id: `chatcmpl-${received.length}`,
            object: "chat.completion",
            created: 0,
            model: "gpt-4o-mini",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `answer ${received.length}` } }],
            usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
          }),
        );
      });
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    const { port } = server.address() as AddressInfo;
    try {
      const env = { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", join(root, "examples", "lcel-chat-history.ts")], { cwd: root, env });
      expect([stdout.split("\n").slice(0, 4), received.map((messages) => messages.map(({ role, content }) => `${role}: ${content}`))]).toEqual([
        ["turn 1: answer 1", "turn 2: answer 2", "turn 3: answer 3", "turn 4: answer 4"],
        [
          ["system: You are a concise operations assistant.", "user: My name is Ada. Which port does the staging API listen on?"],
          [
            "system: You are a concise operations assistant.",
            "user: My name is Ada. Which port does the staging API listen on?",
            "assistant: answer 1",
            "user: And the production API?",
          ],
          [
            "system: You are a concise operations assistant.",
            "user: My name is Ada. Which port does the staging API listen on?",
            "assistant: answer 1",
            "user: And the production API?",
            "assistant: answer 2",
            "user: Which of the two uses TLS?",
          ],
          [
            "system: You are a concise operations assistant.",
            "user: And the production API?",
            "assistant: answer 2",
            "user: Which of the two uses TLS?",
            "assistant: answer 3",
            "user: Remind me of the staging port.",
          ],
        ],
      ]);
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });
});
