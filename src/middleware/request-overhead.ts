import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { REQUEST_OVERHEAD_ID } from "../strategies/context-size.js";

/** What a `wrapModelCall` request adds to the state's messages (the fields this package reads). */
export interface RequestOverheadFields {
  readonly systemMessage?: unknown;
  readonly systemPrompt?: unknown;
  readonly tools?: unknown;
}

/** The schemas' text by tools array: `createAgent` passes the same array to every call. */
const schemaTexts = new WeakMap<object, string>();
/** The overhead message by system message, then by tools array (the empty object for none). */
const overheads = new WeakMap<object, WeakMap<object, BaseMessage | null>>();
const NO_TOOLS = {};

/**
 * One system message standing for what the model gets besides the state's messages: the request's
 * system message (as `createAgent` prepends it, unless its text is empty) and the bound tools'
 * schemas, converted by LangChain's `convertToOpenAITool` (a provider-defined tool as it is given).
 * The compactor gets it first, so the strategy's own counter counts it and its trigger and target
 * account for it (every strategy keeps system messages); it is taken out of the result. The same
 * object for the same system message and tools array, so each is counted once. Undefined when the
 * request adds nothing.
 * @internal
 */
export function requestOverhead(request: RequestOverheadFields): BaseMessage | undefined {
  const system = request.systemMessage ?? request.systemPrompt;
  const tools = Array.isArray(request.tools) && request.tools.length > 0 ? request.tools : undefined;
  const systemKey = typeof system === "object" && system !== null ? system : undefined;
  const cached = systemKey ? overheads.get(systemKey)?.get(tools ?? NO_TOOLS) : undefined;
  if (cached !== undefined) return cached ?? undefined;
  const parts = [systemText(system), tools ? schemaText(tools) : ""].filter((part) => part !== "");
  const overhead = parts.length === 0 ? undefined : new SystemMessage({ id: REQUEST_OVERHEAD_ID, content: parts.join("\n\n") });
  if (systemKey) {
    let byTools = overheads.get(systemKey);
    if (!byTools) overheads.set(systemKey, (byTools = new WeakMap()));
    byTools.set(tools ?? NO_TOOLS, overhead ?? null);
  }
  return overhead;
}

/** The system message's text as `createAgent` sends it (nothing when its text is empty). */
function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  if (typeof system !== "object" || system === null) return "";
  const text = (system as { text?: unknown }).text;
  return typeof text === "string" ? text : "";
}

/** The tools' schemas as a provider gets them, as JSON (cached by tools array). */
function schemaText(tools: readonly unknown[]): string {
  let text = schemaTexts.get(tools);
  if (text === undefined) {
    text = JSON.stringify(tools.map((tool) => {
      try {
        return convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
      } catch {
        // A tool LangChain cannot convert goes to the provider as it is given.
        return tool;
      }
    }));
    schemaTexts.set(tools, text);
  }
  return text;
}
