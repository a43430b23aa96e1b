/**
 * restoreHistory on a state as LangGraph's API server serializes it (plain JSON messages), and the
 * typed errors of the SDK entry points. The API server itself runs in
 * test/integration/langgraph-api.test.ts.
 */
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { InvalidOptionError, restoreHistory, restoreThreadHistory, sdkStore, type RestorableState, type SdkThreadClient } from "../../src/index.js";
import { caught } from "../support/errors.js";
import { graph } from "../integration/langgraph-api/graph.js";
import { turnMessages, userMessage } from "../integration/langgraph-api/script.js";

/** The state as the API server sends it: messages as `{ ...toDict().data, type }`, everything else as JSON. */
function asServerJson(values: Record<string, unknown>): RestorableState {
  return JSON.parse(
    JSON.stringify(values, function (key, value) {
      const raw = (this as Record<string, unknown>)[key];
      if (isBaseMessage(raw)) {
        const { type, data } = raw.toDict();
        return { ...data, type };
      }
      return value;
    }),
  );
}
const stored = (message: BaseMessage) => JSON.parse(JSON.stringify(message.toDict()));

describe("restoreHistory on plain JSON state", () => {
  it("gives back real messages, exactly those sent, from a state serialized as the API server does", async () => {
    const store = new InMemoryStore();
    const compiled = graph.withConfig({});
    compiled.checkpointer = new MemorySaver();
    compiled.store = store;
    const config = { configurable: { thread_id: "plain/1" } };
    for (let turn = 1; turn <= 4; turn++) await compiled.invoke({ messages: [userMessage(turn)] }, config);
    const values = asServerJson((await compiled.getState(config)).values);
    expect(values.compactionLog!.map((record) => record.status)).toEqual(["compacted", "summarized"]);
    expect(values.messages.every((message) => !isBaseMessage(message))).toBe(true);
    const history = await restoreHistory(values, { store, threadId: "plain/1" });
    expect(history.every((message) => isBaseMessage(message))).toBe(true);
    expect(history.map(stored)).toEqual([1, 2, 3, 4].flatMap(turnMessages).map(stored));
  });

  it("takes a mix of messages and plain messages", async () => {
    const [human, ...rest] = turnMessages(1);
    const values = asServerJson({ messages: rest });
    const history = await restoreHistory({ messages: [human!, ...values.messages] });
    expect(history[0]).toBe(human);
    expect(history.map(stored)).toEqual(turnMessages(1).map(stored));
  });
});

describe("the SDK entry points reject what they cannot use", () => {
  // A real SDK client; nothing listens on port 9, and no call below reaches the network.
  const client = new Client({ apiUrl: "http://127.0.0.1:9" });

  it("with typed errors naming the option", async () => {
    const cases: [() => unknown, string, string][] = [
      [() => restoreHistory({ messages: [] }, { store: {} as InMemoryStore }), "restoreHistory", "store"],
      [() => sdkStore({} as Client), "sdkStore", "client"],
      [() => restoreThreadHistory({ store: client.store } as unknown as SdkThreadClient, "t"), "restoreThreadHistory", "client"],
      [() => restoreThreadHistory(client, ""), "restoreThreadHistory", "threadId"],
      [() => restoreThreadHistory(client, "t", { namespace: "app" } as never), "restoreThreadHistory", "namespace"],
      [() => restoreThreadHistory(client, "t", { thread: "t" } as never), "restoreThreadHistory", "thread"],
    ];
    for (const [call, component, option] of cases) {
      const error = await caught(call);
      expect(InvalidOptionError.isInstance(error)).toBe(true);
      expect([(error as InvalidOptionError).component, (error as InvalidOptionError).option]).toEqual([component, option]);
    }
  });
});
