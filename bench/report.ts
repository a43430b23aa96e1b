/**
 * The report printed on stdout: a header (commit, node, versions), then each scenario's settings and
 * table, the latency scenario's lines, the target verdicts and the wall time.
 */
import { gcAvailable } from "./measure.js";
import { perStepTable } from "./per-step.js";
import type { BenchRun } from "./results.js";
import { KEEP_RECENT_GROUPS, KEEP_RECENT_UNBOUNDED, LANGCHAIN_EXACT_MAX_MESSAGES, SEED, TRUNCATE_MAX_TOKENS } from "./settings.js";
import { syntheticTable } from "./synthetic-pass.js";
import { tracesTable } from "./trace-pass.js";
import { WARM_STEP_TRIGGER_TOKENS, warmStepTable } from "./warm-step.js";
import { agentStepTable } from "./agent-step.js";
import { hidingStepTable } from "./hiding-step.js";
import { hidingVariantsTable } from "./hiding-variants.js";

/** The report of a run; `sessionCount` is the number of trace sessions of scenario 3. */
export function reportText(run: BenchRun, sessionCount: number): string {
  const { environment, args, plan, comparisons, variants, step, warm, hiding, agent, traceSummaries, latency, targets, wallTimeMs } = run;
  const out: string[] = [];
  out.push("");
  out.push(
    `langchain-compaction benchmark — commit ${environment.source.commit}${environment.source.srcModified === true ? " + uncommitted src changes" : ""}, ` +
      `node ${environment.node}, ${environment.cpu}, langchain ${environment.packages.langchain}, @langchain/core ${environment.packages["@langchain/core"]}`,
  );
  out.push(
    `median ms over [runs], after one untimed warm-up run (kept as a sample when it takes >= 1 s); LangChain / ours > 1 means ours is faster. ` +
      `gc before each measurement: ${gcAvailable ? "yes" : "no (NODE_OPTIONS=--expose-gc to enable)"}`,
  );
  out.push("");
  out.push(`1) One full pass over a synthetic history (seed ${SEED}), cold caches`);
  out.push(`   toolResultHiding({ keepRecentGroups: ${KEEP_RECENT_GROUPS}, trigger: { messages: 1 }, clearAtLeast: 0, receipts: false }) vs ClearToolUsesEdit({ trigger: { tokens: 1 }, keep: { messages: 3 } })`);
  out.push(`   hardTruncate({ maxTokens: ${TRUNCATE_MAX_TOKENS}, keepRecent: ${KEEP_RECENT_UNBOUNDED} }) vs trimMessages({ maxTokens: ${TRUNCATE_MAX_TOKENS}, strategy: "last", includeSystem, startOn: ["human","ai"] })`);
  out.push(`   exact: LangChain only up to ${LANGCHAIN_EXACT_MAX_MESSAGES} messages ("—" above), ${plan.langChainExactRuns} run(s) asked; LangChain runs also stop after ~${plan.langChainBudgetMs / 1000} s of timed work`);
  out.push(syntheticTable(comparisons));
  out.push("");
  out.push(`1b) The full pass around the defaults, ${variants.messages} messages, approximate counter, cold: supersession off, receipts on`);
  out.push(hidingVariantsTable(variants));
  out.push("");
  out.push(`2) Running agent: per compaction call at ${step.size} messages (history ${step.historyRange[0]}..${step.historyRange[1]} over the steps), +1 assistant/tool-result group per step`);
  out.push("   ours: the previous step's compacted output + the new group (warm caches); LangChain: its own cleared history + the same group");
  out.push(perStepTable(step));
  out.push("");
  out.push(`2b) Warm step: per compaction call at ${warm.size} messages far below the trigger (${WARM_STEP_TRIGGER_TOKENS} tokens): every call is a no-op`);
  out.push("   the previous step's output + one new assistant/tool-result group (new objects); the no-op's token figures are not read (as the graph node does not)");
  out.push(warmStepTable(warm));
  out.push("");
  out.push(`2c) Hiding step: toolResultHiding() (default options) over its trigger at ${hiding.size} messages, exact counter, +1 shell call and its result per step; most steps are no-ops (what aged frees < clearAtLeast)`);
  out.push("   repeated command: every call is `ls` again (each result supersedes the one before); new command: every command is new");
  out.push(hidingStepTable(hiding));
  out.push("");
  out.push(`2d) Per model call: createAgent + MemorySaver, a scripted model (fakeModel) and one lookup tool, a thread of ${agent.size} messages; ${agent.rounds} round(s) of ${agent.steps} timed steps, the systems in turn`);
  out.push("   wall time and the process's CPU time (user + system) from one tool run to the next; CPU time is less moved by other processes on a shared machine");
  out.push(agentStepTable(agent));
  out.push("");
  out.push(`3) Real traces: ${sessionCount} sessions from ${args.tracesPath}`);
  out.push("   each session cold (as in 1); truncation budget = half the session's tokens; totals are sums of per-session medians");
  out.push("   exact counter: ours only (LangChain with per-call tiktoken takes minutes on these sessions)");
  out.push(tracesTable(traceSummaries));
  out.push("");
  out.push("4) Latency: the sessions replayed through a LangGraph agent (ours) and createAgent (LangChain), a summary model on 127.0.0.1 answering after a fixed delay");
  for (const line of latency.lines) out.push(line === "" ? "" : `   ${line.replaceAll("\n", "\n   ")}`);
  out.push("");
  out.push("Targets");
  for (const target of targets) out.push(`  [${target.verdict}] ${target.id}. ${target.description}\n         ${target.detail}`);
  out.push("");
  out.push(`total wall time ${(wallTimeMs / 1000).toFixed(1)} s`);
  return out.join("\n");
}
