/**
 * Deterministic synthetic agent histories for the benchmark: a system message, then agent steps
 * (a user message now and then, an assistant message with 1-3 tool calls, parallel calls included,
 * and one tool result per call with 200-4000 characters of code-like text). Every message and every
 * call has an id. The same seed always gives the same history.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";

/** mulberry32: a small, fast, seeded PRNG with values in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOL_NAMES = ["read_file", "grep", "bash", "list_dir", "run_tests"] as const;
type ToolName = (typeof TOOL_NAMES)[number];

const IDENTIFIERS = ["config", "request", "handler", "userId", "payload", "result", "cache", "session", "items", "retryCount", "parser", "token"];
const FUNCTIONS = ["fetchData", "parseArgs", "validate", "loadConfig", "render", "serialize", "commit", "resolvePath", "computeHash", "dispatch"];
const FILES = ["src/server.ts", "src/router/index.ts", "lib/utils.py", "app/models/user.py", "pkg/cache/lru.go", "src/components/Table.tsx", "tests/test_api.py"];
const USER_ASKS = [
  "The tests in tests/test_api.py fail since the last merge. Can you find out why and fix it?",
  "Also make sure the cache is invalidated when a user is deleted.",
  "Looks good. Now add a regression test for the empty-payload case.",
  "Please keep the public API unchanged and run the whole suite before you finish.",
];

export const SYSTEM_PROMPT =
  "You are a coding agent working in a repository. Use the tools to read files, search, run commands and tests. " +
  "Make minimal, well-tested changes. Explain what you changed when you are done.";

/** The running state of one synthetic agent: PRNG and id counters. */
export class SyntheticAgent {
  readonly #random: () => number;
  #messageCounter = 0;
  #callCounter = 0;

  constructor(seed = 42) {
    this.#random = seededRandom(seed);
  }

  #int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  #pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.#random() * values.length)]!;
  }

  #nextId(kind: string): string {
    this.#messageCounter += 1;
    return `msg_${kind}_${this.#messageCounter}`;
  }

  /** Sizes 200-4000 characters, log-uniform: many small results, a few large ones (like real tools). */
  #resultSize(): number {
    return Math.round(200 * Math.pow(20, this.#random()));
  }

  #codeLine(): string {
    const indent = " ".repeat(2 * this.#int(0, 3));
    const a = this.#pick(IDENTIFIERS);
    const b = this.#pick(IDENTIFIERS);
    const f = this.#pick(FUNCTIONS);
    switch (this.#int(0, 7)) {
      case 0:
        return `${indent}const ${a} = await ${f}(${b}, { retries: ${this.#int(0, 9)} });`;
      case 1:
        return `${indent}if (!${a} || ${a}.length === 0) throw new Error("${f}: empty ${b}");`;
      case 2:
        return `${indent}def ${f.toLowerCase()}_${this.#int(1, 99)}(self, ${a}, ${b}=None):`;
      case 3:
        return `${indent}return {"status": ${this.#pick([200, 201, 400, 404, 500])}, "${a}": ${b}}`;
      case 4:
        return `${this.#pick(FILES)}:${this.#int(1, 900)}:${indent}${a}.${f}(${b})`;
      case 5:
        return `${indent}// TODO(${a}): handle ${b} when ${f} times out after ${this.#int(1, 30)}s`;
      case 6:
        return `${indent}for (let i = 0; i < ${a}.length; i++) ${b}[i] = ${f}(${a}[i]);`;
      default:
        return `${indent}}`;
    }
  }

  #codeText(size: number): string {
    const lines: string[] = [];
    let length = 0;
    while (length < size) {
      const line = this.#codeLine();
      lines.push(line);
      length += line.length + 1;
    }
    return lines.join("\n").slice(0, size);
  }

  #toolCall(): ToolCall {
    this.#callCounter += 1;
    const name: ToolName = this.#pick(TOOL_NAMES);
    const args: Record<string, unknown> =
      name === "read_file"
        ? { path: this.#pick(FILES), start_line: this.#int(1, 400) }
        : name === "grep"
          ? { pattern: `${this.#pick(FUNCTIONS)}\\(`, path: "src/", ignore_case: this.#random() < 0.3 }
          : name === "bash"
            ? { command: `cd /repo && git diff --stat && npm run build -- --filter ${this.#pick(IDENTIFIERS)}` }
            : name === "list_dir"
              ? { path: this.#pick(FILES).split("/")[0] ?? "." }
              : { target: this.#pick(FILES), verbose: true };
    return { id: `call_${this.#callCounter}`, name, args, type: "tool_call" };
  }

  system(): SystemMessage {
    return new SystemMessage({ id: this.#nextId("system"), content: SYSTEM_PROMPT });
  }

  user(): HumanMessage {
    return new HumanMessage({ id: this.#nextId("user"), content: this.#pick(USER_ASKS) });
  }

  /** One tool-call group: an assistant message with `calls` calls (1-3 when omitted) and its results. */
  step(calls = this.#callsPerStep()): BaseMessage[] {
    const toolCalls = Array.from({ length: calls }, () => this.#toolCall());
    const thought = this.#random() < 0.6 ? `Let me ${this.#pick(["check", "look at", "search for", "run"])} ${this.#pick(FILES)} next.` : "";
    const assistant = new AIMessage({ id: this.#nextId("ai"), content: thought, tool_calls: toolCalls });
    const results = toolCalls.map(
      (call) =>
        new ToolMessage({
          id: this.#nextId("tool"),
          tool_call_id: call.id!,
          name: call.name,
          content: this.#codeText(this.#resultSize()),
        }),
    );
    return [assistant, ...results];
  }

  #callsPerStep(): number {
    const roll = this.#random();
    return roll < 0.6 ? 1 : roll < 0.9 ? 2 : 3;
  }

  /**
   * A history of exactly `size` messages (size >= 1): the system message, then steps, with a user
   * message before the first step and before about one step in eight. The last step is shortened so
   * the size is exact and every call is still answered.
   */
  history(size: number): BaseMessage[] {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`history size must be a positive integer, got ${size}`);
    const messages: BaseMessage[] = [this.system()];
    let first = true;
    while (messages.length < size) {
      const remaining = size - messages.length;
      if (first || remaining === 1 || this.#random() < 0.125) {
        messages.push(this.user());
        first = false;
        if (remaining === 1) break;
      }
      const left = size - messages.length;
      if (left < 2) continue;
      const calls = Math.min(this.#callsPerStep(), left - 1);
      messages.push(...this.step(calls));
    }
    return messages;
  }
}

/** The synthetic history of `size` messages for `seed` (new message objects on every call). */
export function syntheticHistory(size: number, seed = 42): BaseMessage[] {
  return new SyntheticAgent(seed).history(size);
}

/** Character count of a history's text content (for the report). */
export function contentCharacters(messages: readonly BaseMessage[]): number {
  let total = 0;
  for (const message of messages) total += typeof message.content === "string" ? message.content.length : JSON.stringify(message.content).length;
  return total;
}

/**
 * New message objects with the same fields (system, user, assistant with tool calls, tool result):
 * a caller whose cache is keyed by message object sees them as never counted before.
 */
export function renewMessages(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((message) => {
    const content = typeof message.content === "string" ? message.content : [...message.content];
    const id = message.id;
    if (AIMessage.isInstance(message)) {
      return new AIMessage({ id, content, tool_calls: (message.tool_calls ?? []).map((call) => ({ ...call, args: { ...call.args } })) });
    }
    if (ToolMessage.isInstance(message)) {
      return new ToolMessage({ id, content, tool_call_id: message.tool_call_id, ...(message.name !== undefined ? { name: message.name } : {}) });
    }
    if (message.type === "system") return new SystemMessage({ id, content });
    if (message.type === "human") return new HumanMessage({ id, content });
    throw new Error(`renewMessages: unsupported message type ${message.type}`);
  });
}
