/**
 * The evaluation's markdown report (bench/EVAL.md): how it was measured, per window the headline
 * table, the cost under every price set, the cost-retention and cost-grounding charts and retention per trace source,
 * then the goal check, the probes and the input-tokens chart.
 */
import type { Prices } from "./metrics.js";
import { ANTHROPIC_LOOKBACK_BLOCKS } from "./anthropic-cache.js";
import { REREAD_REPLY_TOKENS } from "./rereads.js";
import { RECALL_CALL_TOKENS, RECALL_FRAME_TOKENS, RECALL_PAGE_TOKENS, RECALL_REFERENCE_TOKENS, RECALL_SCHEMA_TOKENS } from "./recall.js";
import { RECALL_ROOM_MARGIN } from "../../src/langgraph/recall-room.js";
import { recallTable } from "./report-recall.js";
import { fmtInt, markdownTable } from "./report-format.js";
import { goalSection } from "./report-goals.js";
import type { FrontierResult } from "./frontier-run.js";
import { frontierSection } from "./report-frontier.js";
import { presetCostTable, retentionBySourceTable, windowTable, type PresetCosts, type PriceSet, type SourceRows, type SystemRow } from "./report-tables.js";
import { recallRowName } from "./report-tables.js";
import { BLOCKING_SUMMARIES, EARLY_PREPARATION, FRUGAL_SETTING, RECALL_SYSTEMS, SHARED_PREFIX_DEFAULT } from "./systems.js";

/** The rows of one window. */
export interface WindowResult {
  readonly window: number;
  readonly rows: readonly SystemRow[];
  /** The same rows per trace source (session id prefix), for retention. */
  readonly sources: readonly SourceRows[];
  /** Every row's cost under every price set (the reference prices first). */
  readonly presetCosts: readonly PresetCosts[];
}

/** The probe section: skipped (and why), or the aggregates per window and system. */
export type ProbeSection =
  | { readonly skipped: string }
  | {
      readonly judge: string;
      /** Compactions probed per trace and system at most (`Infinity`: every one). */
      readonly compactionsProbed: number;
      readonly rows: readonly { window: number; system: string; count: number; unscored: number; overall: number; byKind: Record<string, number>; byDimension: Record<string, number> }[];
    };

/** Everything the markdown report says. */
export interface EvalReport {
  readonly command: string;
  readonly date: string;
  readonly commit: string;
  readonly sourceModified: boolean | "unknown";
  readonly environment: string;
  readonly tracesPath: string;
  readonly traceCount: number;
  readonly steps: number;
  readonly summarizer: string;
  /** The reference prices (the headline tables'). */
  readonly prices: Prices;
  /** The reference prices and every preset, in the order of the cost tables. */
  readonly priceSets: readonly PriceSet[];
  readonly windows: readonly WindowResult[];
  readonly probes: ProbeSection;
  readonly chart: { readonly file: string; readonly trace: string; readonly window: number } | undefined;
  /** The frontier sweep (`--frontier`) and its chart per window, when run. */
  readonly frontier?: { readonly result: FrontierResult; readonly charts: readonly { readonly window: number; readonly file: string }[] };
  /** The cost-retention and cost-grounding charts of each window (file names relative to the report). */
  readonly costRetentionCharts: readonly { readonly window: number; readonly file: string; readonly groundingFile?: string }[];
  readonly wallTimeMs: number;
}

function probeSection(probes: ProbeSection): string[] {
  const lines = ["## Probes", ""];
  if ("skipped" in probes) {
    lines.push(`probes: skipped (${probes.skipped})`, "");
    return lines;
  }
  const which =
    probes.compactionsProbed === Number.POSITIVE_INFINITY
      ? "each compaction"
      : probes.compactionsProbed === 1
        ? "the first compaction"
        : `each of the first ${probes.compactionsProbed} compactions`;
  lines.push(`Judge: ${probes.judge}. Scores 0-5, mean over the probes asked after ${which} of each system on each trace.`, "");
  const kinds = ["recall", "artifact", "continuation", "decision"];
  lines.push(
    markdownTable(
      ["window", "system", "probes", "unscored", "overall", ...kinds],
      probes.rows.map((row) => [fmtInt(row.window), row.system, String(row.count), String(row.unscored), row.overall.toFixed(2), ...kinds.map((kind) => (row.byKind[kind] ?? Number.NaN).toFixed(2))]),
      new Set([0, 2, 3, 4, 5, 6, 7, 8]),
    ),
  );
  lines.push("");
  return lines;
}

/** The recall section: the targets of each row with recall on, per window. */
function recallSection(windows: readonly WindowResult[]): string[] {
  const systems = RECALL_SYSTEMS.map(recallRowName).filter((system) => windows.some((window) => window.rows.some((row) => row.system === system)));
  if (systems.length === 0) return [];
  return [
    "## Recall",
    "",
    "Targets of each row with recall on, per window: no lost word; cost with re-reads and recalls at most the cheapest LangChain row's that stays inside the window (where none does, the cheapest row's), under every price set, at a reply grounding no lower than that row's less 0.01 (not asked where no LangChain row stays inside); no call over the window. Costs at the reference prices; the target column counts the price sets under which cost and grounding hold.",
    "",
    recallTable(windows, systems),
    "",
  ];
}

/** The markdown report (bench/EVAL.md). */
export function renderMarkdown(report: EvalReport): string {
  const lines: string[] = [];
  lines.push("# Evaluation on real traces", "");
  lines.push("```", report.command, "```", "");
  lines.push(
    `- date: ${report.date}`,
    `- commit: ${report.commit}${report.sourceModified === true ? " (with uncommitted changes in src/ or bench/)" : ""}`,
    `- environment: ${report.environment}`,
    `- traces: ${report.traceCount} sessions, ${fmtInt(report.steps)} model calls each system and window (${report.tracesPath})`,
    `- summarizer: ${report.summarizer}`,
    `- reference prices per token (headline tables): input ${report.prices.input}, cache write ${report.prices.cacheWrite}, cached input ${report.prices.cachedInput}, output ${report.prices.output}`,
    `- wall time: ${(report.wallTimeMs / 1000).toFixed(1)} s`,
    "",
  );
  lines.push("## How it was measured", "");
  lines.push(
    "- Each trace is replayed as an agent runs: before each assistant message of the recording, the persisted history plus the messages added since the last call goes through the system, and what the model would receive is measured; the recorded reply then joins the history.",
    "- Ours run as the compaction node runs them: `compact`, then `compactionUpdate` and LangGraph's `messagesStateReducer` apply the result to the persisted history. Defaults, with the window as `contextWindow`.",
    `- autoCompaction prepares its summaries off the agent's path (on by default with a summary model): a firing that needs a summary starts it in the background and sends the history as it is; the summary, finished when the agent's model has answered, goes in at the next step. ${BLOCKING_SUMMARIES}: the same with \`prepare: false\`, every summary written in the step that fires. ${EARLY_PREPARATION}: \`prepare: { at: 0.9 }\`, a summary started from 0.9 of the way to the size that fires when a dry run foresees that hiding will not be enough, ready at the firing.`,
    `- ${SHARED_PREFIX_DEFAULT}: autoCompaction with \`summaryRequest: "shared-prefix"\`, the summary model standing for the agent's own, so its summary calls start with the agent's previous call. The plain autoCompaction row stands for a separate summary model sent a standalone prompt; both are priced at the agent's prices (a cheaper summary model makes the standalone row's summary calls cheaper). Hidden tool results' receipts, like the offline summarizer's artifact index, use the same extractor as the retention measure below.`,
    `- ${FRUGAL_SETTING}: \`trigger: { tokens: 14_000 }\` and \`hiding: { keepRecentGroups: 2 }\`, the default before the re-read pricing chose the current one (0.8 of the window or 60,000 tokens, 3 groups kept): cheaper, and it keeps less of what the agent read.`,
    "- ClearToolUsesEdit, two rows: LangChain's class inside `contextEditingMiddleware`, called through the middleware's own `wrapModelCall`; trigger 0.8 × window tokens, keep 3. **(view)** reads the middleware as editing a copy of the messages at every call and the history stays whole. **(createAgent)** is what `createAgent` does: its agent node passes the state's own message array as `request.messages` and `ClearToolUsesEdit.apply` replaces cleared results in that array, so the clearing is persisted in the state and its checkpoint (checked against a real `createAgent` in test/eval/create-agent.test.ts). Both are LangChain rows for the cost goals.",
    "- summarizationMiddleware: LangChain's middleware, its own `beforeModel` hook called with the state, its update applied with `messagesStateReducer` (persisted); trigger 0.8 × window tokens, keep 20 messages, its other options at their defaults (it summarizes the last 4000 tokens of the part it replaces).",
    "- Every system triggers with, and every figure is measured by, the same exact counter (`createTokenCounter()`, o200k_base); LangChain gets it as its token counter.",
    "- Input tokens: every model call's input plus every summary call's prompt as sent. Output tokens: the recording's assistant messages (the same for every system) plus the summaries. Tokens per task: input tokens summed over the task (model-call input + summary-call input + summary-call output), averaged over the traces.",
    "- Cached-prefix tokens: per model call, the longest run of leading messages identical (role, content, tool calls, tool-call id, name) to the previous call's, their token counts summed. Message granularity: a changed message breaks the prefix at its start; providers' 128-token block rounding is ignored.",
    "- Summary calls' cache: each summary prompt's cached prefix is counted like a model call's, against the agent's previous model call (what the provider holds in its cache when the summary is asked for), and added to the step's cached tokens; the headline table gives it apart (\"of which summary calls\"). A standalone summary prompt (one user message holding the conversation as text) shares no prefix with the agent's call, so it counts as uncached. Cached share = cached-prefix tokens (model and summary calls) / input tokens.",
    "- Cost: (input − cached) × cache-write price + cached × cached-input price + output × output price. The cache-write price is what an uncached input token costs: every uncached token is written to the prompt cache (1× the input price at OpenAI and Google, 1.25× at Anthropic). The headline tables use the reference prices (input 1, cache write 1, cached input 0.1, output 4 per token, or the `--price-*` flags); the cost table under each window repeats every row's cost with each price set, as a multiple of no compaction and of the cheapest LangChain row (ClearToolUsesEdit's two rows and summarizationMiddleware).",
    ...report.priceSets
      .filter((set) => set.source !== undefined)
      .map((set) => `  - ${set.label}: cache write ${set.rates.cacheWrite}, cached input ${set.rates.cachedInput}, output ${set.rates.output} (input = 1); ${set.source}, checked ${set.checked}${set.note ? `; ${set.note}` : ""}`),
    ...report.priceSets
      .filter((set) => set.cache === "anthropic-automatic")
      .map(
        (set) =>
          `  - ${set.label}: the same prices, the cache read as Anthropic's automatic caching reads it (one breakpoint at the end of each request, as \`ChatAnthropic\`'s \`cache_control\` call option sets it): a call (or a summary call) reads the longest earlier prompt that is a prefix of its own and ends fewer than ${ANTHROPIC_LOOKBACK_BLOCKS} content blocks before its end (Anthropic checks at most ${ANTHROPIC_LOOKBACK_BLOCKS} positions back from a breakpoint, the breakpoint counted first; content blocks as \`ChatAnthropic\`'s converter sends them), else nothing. Summary calls are read the same way (their own entries are never read by the agent's later calls). A change further back than that (a hidden result, a summary) writes the whole prompt again at the cache-write price, system prompt included; the prefix reading of the other price sets holds for Anthropic only with a breakpoint placed at every break.`,
      ),
    ...report.priceSets
      .filter((set) => set.cache === "anthropic-anchored")
      .map(
        (set) =>
          `  - ${set.label}: the same reading, with the package's cache anchors (\`anthropicCacheAnchors\`) on every model call of every row: besides its end, a request has a breakpoint after each message \`cacheAnchorPositions\` gives for its input (the assistant message of the newest hidden result's group, and that of the newest result an earlier hiding run hid), each of which reads an entry as the end does and writes one. For LangChain's rows too, since the anchors work on any history whose cleared results carry LangChain's marker (without a hiding run's \`batch\`, only the first anchor).`,
      ),
    "- Retention: at each call, of the file paths, identifiers and error lines the original stream has shown so far (the package's `extractArtifacts`, unbounded), the share present as substrings of the model's input (contents and tool-call arguments, summaries included), averaged over calls. Per-kind figures pool every call; a kind that no call after a compaction tracked reads n/a (never compacted), as it would be 1 by construction. The offline deterministic summarizer's artifact index uses the same extractor as this metric: symmetric for every summarizing system offline, but it favours a design that renders the index into the context. Retention is also given per trace source (session id prefix), since only the tau-bench traces have identifiers.",
    "- Reply grounding: at each call, the words of the recorded reply (runs of ASCII letters, digits and underscores of at least 5 characters, not starting with a digit, case-sensitive; from its text and its tool calls' names and argument values) that some earlier message of the recording had (system prompt, user, tools, the agent's own earlier replies; not a word only a summary or a placeholder brought), and the share of them some message of the model's input has, pooled over calls (no compaction: 1 by construction). It asks whether what the agent went on to reuse (a function it read, a line it quotes in an edit) was still in its context, whatever extractor built a receipt or a summary's index; lexical, so a summary that paraphrases scores lower than one that quotes.",
    `- Cost with re-reads: the replay fixes the agent's next action, so a lost word costs nothing there; each grounding miss is charged as the recovery it forces. A reused word the input lacks is traced to the newest tool result of the recording that had it, and the agent repeats that call: each source once per compaction epoch (from a step at which the system compacted to its next compaction; ClearToolUsesEdit (view) changes the request at every call once it fires, so each of its calls is an epoch), as one extra model call whose input is the step's input, all of it cached (it was just sent), plus ${REREAD_REPLY_TOKENS} tokens of the repeated call and the source's tokens, uncached, and whose output is the ${REREAD_REPLY_TOKENS}-token call; priced alike under every price set. A missing word no tool result had, only the agent's own replies or only a user (or system) message, cannot be fetched again: counted as lost (own / user), not charged. It models recovery, not task success (docs/evaluation.md).`,
    `- Recall (rows \`<system> + recall\`, for ${RECALL_SYSTEMS.join(" and ")}): each system replayed as it runs with the recall tool (\`withRecall: true\`, which \`autoCompactionMiddleware\`'s \`recall\` sets), with the agent able to read its own thread's archive back (the recall tool). A missing word's source (traced as for re-reads: the newest tool result that had it, else the newest message that had it) is reached by the reference the context shows for it: its own, where a rewritten copy of it (a placeholder, a trimmed reply) is in the input; else that of the summary standing for it. Per reference, one recall with \`find\` naming the step's missed words it reaches (\`a|b\`), read up to the line where the last of them first shows, and one recall of its own for a word that first shows only past ${fmtInt(RECALL_PAGE_TOKENS)} tokens of it; priced at the tokens of exactly what the tool returns (the matching lines under their messages' headers, newest first); a step's recalls go out as parallel tool calls, one model call per round of parts of at most ${fmtInt(RECALL_PAGE_TOKENS)} tokens plus a ${RECALL_FRAME_TOKENS}-token frame, bounded as the tool bounds them when it knows the window (the room the context leaves in the window less ${RECALL_ROOM_MARGIN * 100}%, shared among the round's calls; a word no room is left for stays missing at its step), each priced as a re-read (input: the step's input with the schema and references, cached, plus the rounds before, cached, plus the ${RECALL_CALL_TOKENS}-token calls and their parts, uncached; output: the calls); a word recalled once is not recalled again in the compaction epoch. A miss no reference in the context reaches is re-read (a tool result) or lost, as without recall. Every model call carries the tool's schema (${RECALL_SCHEMA_TOKENS} tokens) and ${RECALL_REFERENCE_TOKENS} tokens of reference per rewritten message, cached where the call's cached prefix covers them. Calls over the window count model calls with them and recall calls. Grounding is the system's (what its inputs held); "after recovery" adds the words re-read and recalled.`,
    "- Calls over the window: model calls whose input exceeds the window / summary calls whose prompt does. Compactions: steps at which the system changed the history (ClearToolUsesEdit (view): the request). Compaction ms: time spent before the model calls, summary calls included.",
    "- Tool pairing valid: share of calls whose input passes `validateToolPairing`.",
    "",
  );
  for (const { window, rows, sources, presetCosts } of report.windows) {
    lines.push(`## Window ${fmtInt(window)} tokens`, "");
    lines.push(windowTable(rows), "");
    lines.push(`Cost under each price set at ${fmtInt(window)} tokens: the cost, as a multiple of no compaction (× none) and of the cheapest LangChain row under the same prices (× cheapest LangChain):`, "");
    lines.push(presetCostTable(presetCosts), "");
    const chart = report.costRetentionCharts.find((candidate) => candidate.window === window);
    if (chart) lines.push(`![cost vs retention at ${fmtInt(window)} tokens](${chart.file})`, "");
    if (chart?.groundingFile) lines.push(`![cost vs reply grounding at ${fmtInt(window)} tokens](${chart.groundingFile})`, "");
    if (sources.length > 0) {
      lines.push(`Retention and reply grounding per trace source at ${fmtInt(window)} tokens:`, "");
      lines.push(retentionBySourceTable(sources), "");
    }
  }
  lines.push(...recallSection(report.windows));
  lines.push(...goalSection(report.windows, report.priceSets));
  if (report.frontier) lines.push(...frontierSection(report.frontier.result, report.priceSets, new Map(report.frontier.charts.map((chart) => [chart.window, chart.file]))));
  lines.push(...probeSection(report.probes));
  if (report.chart) {
    lines.push("## Input tokens per step", "");
    lines.push(`${report.chart.trace} at window ${fmtInt(report.chart.window)}; circles mark compactions.`, "");
    lines.push(`![input tokens per step](${report.chart.file})`, "");
  }
  return `${lines.join("\n")}\n`;
}
