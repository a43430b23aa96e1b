/**
 * Replays one recorded session through one system, the way an agent runs: before each assistant
 * message of the recording, the persisted history plus the messages added since the last call goes
 * through the system, and what the model would receive is measured. The assistant message then
 * joins the persisted history, as the model's reply joins the agent's state.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { performance } from "node:perf_hooks";
import { compactionMarkerOf, type ArtifactIndex, type TokenCounter } from "../../src/index.js";
import { cacheAnchorPositions, extractArtifacts } from "../../src/extend/index.js";
import type { TraceSession } from "../../examples/traces.js";
import {
  RetentionTracker,
  UNBOUNDED_ARTIFACT_LIMITS,
  cachedPrefixTokens,
  commonPrefixLength,
  toolPairingValid,
  trackedArtifacts,
  type Retention,
} from "./metrics.js";
import { AnthropicAutomaticCache } from "./anthropic-cache.js";
import { GroundingTracker, type Grounding } from "./grounding.js";
import { RereadLedger, type StepRecovery } from "./rereads.js";
import { RECALL_REFERENCE_TOKENS, RECALL_SCHEMA_TOKENS, RecallArchive, RecallLedger, type StepRecall } from "./recall.js";
import type { EvalSystem } from "./systems.js";
import type { SummaryCall } from "./summary-model.js";

/** One model call of a replay. */
export interface StepRecord {
  /** Position of the assistant message this call produced, in the recording. */
  readonly position: number;
  /** Tokens of the model's input. */
  readonly inputTokens: number;
  /** Messages of the model's input. */
  readonly messages: number;
  /**
   * Cached input tokens of this step: the model call's longest common prefix with the previous
   * call's input (message granularity), plus {@link summaryCachedTokens}.
   */
  readonly cachedTokens: number;
  /**
   * Of `cachedTokens`, the summary calls' part: each summary prompt's common prefix with the
   * previous step's model input (what the provider has cached when the summary call is made).
   */
  readonly summaryCachedTokens: number;
  /**
   * Cached input tokens of this step (model call and summary calls) under Anthropic's automatic
   * caching, one breakpoint at the end of each request (see anthropic-cache.ts).
   */
  readonly anthropicCachedTokens: number;
  /**
   * The same with the package's cache anchors on the model call (`cacheAnchorPositions`): the
   * request's breakpoints are those anchors and its end.
   */
  readonly anchoredCachedTokens: number;
  readonly compacted: boolean;
  /** Time the system took before this call (compaction, summary calls, applying the update). */
  readonly compactionMs: number;
  readonly retention: Retention;
  /** Of the words the recorded reply reuses from the recording before it, how many this input holds (see grounding.ts). */
  readonly grounding: Grounding;
  /** The re-reads the grounding misses force, and the missing words no tool result had (see rereads.ts). */
  readonly recovery: StepRecovery;
  /**
   * The same misses recovered with recall on (see recall.ts): what the thread's archive held is
   * recalled, the rest re-read or lost. Only ours archive; for the others it equals `recovery`.
   */
  readonly recall: StepRecall;
  /**
   * Whether the model call reads a cached prefix (so the recall tool's schema, which precedes the
   * messages, is read from the cache too): as the prefix reading, Anthropic's automatic caching, and
   * the same with cache anchors read it.
   */
  readonly cachedPrefix: { readonly prefix: boolean; readonly anthropic: boolean; readonly anchored: boolean };
  /**
   * Messages of the input a compaction rewrote (a compaction marker), which carry a recall reference
   * with recall on: in all, and within the cached prefix.
   */
  readonly referenced: { readonly all: number; readonly cached: number };
  readonly pairingValid: boolean;
  /** Summary calls the system made before this call. */
  readonly summaryCalls: readonly SummaryCall[];
}

/** What a system did with one recording. */
export interface TraceReplay {
  readonly trace: string;
  readonly system: string;
  readonly window: number;
  readonly steps: readonly StepRecord[];
  /** Tokens of the recording's assistant messages: the agent's output, the same for every system. */
  readonly agentOutputTokens: number;
}

/** A compaction, as the probe step sees it. */
export interface CompactionEventForProbes {
  readonly step: number;
  /** What left the model's context at this step. */
  readonly originals: readonly BaseMessage[];
  /** The recording up to this call (what really happened). */
  readonly history: readonly BaseMessage[];
  /** What the model receives. */
  readonly context: readonly BaseMessage[];
}

/** Options of {@link replayTrace}. */
export interface ReplayOptions {
  readonly window: number;
  /** Measures every call (the same counter the systems trigger with). */
  readonly tokenCounter: TokenCounter;
  /** Called after each step at which the system compacted (e.g. to ask probes). */
  readonly onCompaction?: (event: CompactionEventForProbes) => Promise<void>;
  /** Called with what the model receives at every step (tests compare it with a real agent's calls). */
  readonly onInput?: (input: readonly BaseMessage[], step: number) => void;
}

/**
 * Replay `session` through `system`.
 *
 * @example
 * const replay = await replayTrace(session, clearToolUsesView.create(context), { window: 16_000, tokenCounter });
 */
export async function replayTrace(session: TraceSession, system: EvalSystem, options: ReplayOptions): Promise<TraceReplay> {
  const { tokenCounter } = options;
  const retention = new RetentionTracker();
  const grounding = new GroundingTracker();
  const rereads = new RereadLedger();
  const recalls = new RecallLedger();
  /** The thread's archive, as the system writes it. */
  const archive = new RecallArchive();
  const byId = new Map(session.messages.flatMap((message) => (message.id === undefined ? [] : [[message.id, message] as const])));
  const messageOf = (id: string) => byId.get(id);
  const positions = new Map(session.messages.flatMap((message, index) => (message.id === undefined ? [] : [[message.id, index] as const])));
  const positionOf = (id: string) => positions.get(id) ?? -1;
  const countMessage = (source: BaseMessage) => tokenCounter.countMessage(source);
  const anthropic = new AnthropicAutomaticCache();
  const anchored = new AnthropicAutomaticCache();
  const steps: StepRecord[] = [];
  let persisted: BaseMessage[] = [];
  let pending: BaseMessage[] = [];
  let previousInput: readonly BaseMessage[] = [];
  let originalIndex: ArtifactIndex = extractArtifacts([], [], UNBOUNDED_ARTIFACT_LIMITS);
  let agentOutputTokens = 0;
  const recording = session.messages;
  for (let position = 0; position < recording.length; position++) {
    const message = recording[position]!;
    if (message.type !== "ai") {
      pending.push(message);
      continue;
    }
    // The artifacts the original stream has shown so far, before this call.
    originalIndex = extractArtifacts(pending, [originalIndex], UNBOUNDED_ARTIFACT_LIMITS);
    retention.register(trackedArtifacts(originalIndex));
    grounding.show(pending);
    const history = [...persisted, ...pending];
    const started = performance.now();
    const result = await system.step(history);
    const compactionMs = performance.now() - started;
    // The agent's model answers now: background work (a summary prepared ahead) gets that time.
    await system.idle?.();
    const summaryCalls = system.drainSummaryCalls();
    const summaryCachedTokens = summaryCallsCachedTokens(summaryCalls, previousInput);
    const measurement = await tokenCounter.measure(result.input);
    const prefix = commonPrefixLength(previousInput, result.input);
    const [anthropicCachedTokens, anthropicModelRead] = callsRead(anthropic, summaryCalls, result.input, measurement.perMessage, [result.input.length]);
    const misses = grounding.misses(message, result.input);
    if (result.archive) archive.add(result.archive);
    if (result.compacted) {
      rereads.newEpoch();
      recalls.newEpoch();
    }
    const recovery = await rereads.charge(misses, measurement.total, countMessage);
    let referenced = 0;
    let referencedCached = 0;
    result.input.forEach((inputMessage, index) => {
      if (compactionMarkerOf(inputMessage) === undefined) return;
      referenced++;
      if (index < prefix) referencedCached++;
    });
    const contextTokens = measurement.total + RECALL_SCHEMA_TOKENS + RECALL_REFERENCE_TOKENS * referenced;
    const recall = await recalls.charge(misses, { archive, input: result.input, contextTokens, window: options.window, messageOf, positionOf, countMessage, tokenCounter });
    const breakpoints = [...cacheAnchorPositions(result.input).map((index) => index + 1), result.input.length];
    const [anchoredCachedTokens, anchoredModelRead] = callsRead(anchored, summaryCalls, result.input, measurement.perMessage, breakpoints);
    steps.push({
      position,
      inputTokens: measurement.total,
      messages: result.input.length,
      cachedTokens: cachedPrefixTokens(measurement.perMessage, prefix) + summaryCachedTokens,
      summaryCachedTokens,
      anthropicCachedTokens,
      anchoredCachedTokens,
      compacted: result.compacted,
      compactionMs,
      retention: retention.measure(result.input),
      grounding: misses.grounding,
      recovery,
      recall,
      cachedPrefix: { prefix: prefix > 0, anthropic: anthropicModelRead > 0, anchored: anchoredModelRead > 0 },
      referenced: { all: referenced, cached: referencedCached },
      pairingValid: toolPairingValid(result.input),
      summaryCalls,
    });
    options.onInput?.(result.input, steps.length - 1);
    if (result.compacted && options.onCompaction) {
      await options.onCompaction({ step: steps.length - 1, originals: result.originals, history: recording.slice(0, position), context: result.input });
    }
    previousInput = result.input;
    // The reply joins the state; its artifacts join the original stream.
    agentOutputTokens += await tokenCounter.countMessage(message);
    originalIndex = extractArtifacts([message], [originalIndex], UNBOUNDED_ARTIFACT_LIMITS);
    grounding.show([message]);
    persisted = [...result.persisted, message];
    pending = [];
  }
  return { trace: session.id, system: system.name, window: options.window, steps, agentOutputTokens };
}

/**
 * What a step reads from Anthropic's cache, in all and by the model call alone: its summary calls (a
 * breakpoint at their end), then the model call with breakpoints after the first `p` messages for
 * each `p` of `breakpoints`, whose entries it then writes.
 */
function callsRead(cache: AnthropicAutomaticCache, summaryCalls: readonly SummaryCall[], input: readonly BaseMessage[], perMessage: readonly number[], breakpoints: readonly number[]): [number, number] {
  let read = 0;
  for (const call of summaryCalls) read += cache.read(call.messages, call.perMessage);
  const model = cache.read(input, perMessage, breakpoints);
  cache.write(input, breakpoints);
  return [read + model, model];
}

/**
 * The cached input tokens of summary calls made before a model call: each prompt's common prefix
 * (message granularity) with `previousInput`, the agent's previous model call, which is what the
 * provider holds in its cache when the summary call is made. A standalone summary prompt (one
 * human message holding the conversation as text) shares nothing with it: 0.
 *
 * @example
 * summaryCallsCachedTokens(step.summaryCalls, previousStepInput);
 */
export function summaryCallsCachedTokens(calls: readonly SummaryCall[], previousInput: readonly BaseMessage[]): number {
  let cached = 0;
  for (const call of calls) cached += cachedPrefixTokens(call.perMessage, commonPrefixLength(previousInput, call.messages));
  return cached;
}

export { EMPTY_TOTALS, addTotals, totalsOf, type KindRetention, type ReplayTotals } from "./totals.js";
