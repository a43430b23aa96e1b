import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import {
  NO_JUDGE_REASON,
  PROBE_ANSWER_PROMPT,
  PROBE_DIMENSIONS,
  PROBE_JUDGE_PROMPT,
  aggregateProbeResults,
  archivedOriginals,
  generateProbes,
  judgeFromEnvironment,
  parseJudgeReply,
  runProbes,
  type Probe,
  type ProbeDimension,
  type ProbeKind,
  type ProbeResult,
} from "../../bench/eval/probes.js";
import { defaultTracesPath, loadTraceSessions } from "../../examples/traces.js";
import { InvalidOptionError, stateSnapshotSummary, toolResultHiding } from "../../src/index.js";
import { fillTemplate } from "../../src/summary/format-history.js";
import { assistant, system, toolResult, user } from "../support/builders.js";
import { caught } from "../support/errors.js";
import { EVERY_RUN } from "../support/hiding.js";

/** A short coding session: a failing test, a read, a fix, a rerun. */
const codingHistory = [
  system("s0", "You are a coding agent."),
  user("u1", "Fix the failing login test in tests/test_auth.py without changing the public API."),
  assistant("a2", "THOUGHT: Run the failing test first.\n\n```bash\npytest tests/test_auth.py -q\n```", [
    { id: "call_1", args: { command: "pytest tests/test_auth.py -q" } },
  ]),
  toolResult("t3", "call_1", "F.\nFAILED tests/test_auth.py::test_login - KeyError: 'session_id'\n1 failed, 1 passed in 0.12s"),
  assistant("a4", "THOUGHT: The session store writes the key; read it.", [{ id: "call_2", args: { command: "cat src/auth/session.py" } }]),
  // Source code shown by `cat`: its "KeyError" is code, not an error the agent met.
  toolResult("t5", "call_2", "def save(session):\n    store['sid'] = session.id\n    raise KeyError('never')"),
  assistant("a6", "THOUGHT: I decided to store the id under 'session_id' instead of 'sid', the key the login view reads.", [
    { id: "call_3", args: { command: "sed -i 's/sid/session_id/' src/auth/session.py" } },
  ]),
  toolResult("t7", "call_3", ""),
  assistant("a8", "THOUGHT: Rerun the test.", [{ id: "call_4", args: { command: "pytest tests/test_auth.py -q" } }]),
  toolResult("t9", "call_4", "..\n2 passed in 0.10s"),
];
/** A summary replaced messages 1 to 7. */
const codingOriginals = codingHistory.slice(1, 8);

const codingTask = "Fix the failing login test in tests/test_auth.py without changing the public API.";
const codingProbes: Record<string, Probe> = {
  request: {
    id: "recall:request",
    kind: "recall",
    question: "What was the user's original request? Restate it with its specifics (names, paths, values, constraints).",
    expected: codingTask,
  },
  failure: {
    id: "recall:outcome@call_1",
    kind: "recall",
    // The test ran twice: the question says which run.
    question: "What did the command `pytest tests/test_auth.py -q` (run 1 of 2) report? Quote the key lines (errors, test results).",
    expected: "FAILED tests/test_auth.py::test_login - KeyError: 'session_id'\n1 failed, 1 passed in 0.12s",
  },
  files: {
    id: "artifact:files",
    kind: "artifact",
    question: "Which files were created, modified or read earlier in this session? List every path and say whether it was created, modified or read.",
    expected: "modified: src/auth/session.py\nread: tests/test_auth.py, src/auth/session.py",
  },
  changed: {
    id: "artifact:changed",
    kind: "artifact",
    question: "Which files did you create or modify (not only read)?",
    expected: "modified: src/auth/session.py",
  },
  next: {
    id: "continuation:next",
    kind: "continuation",
    question: "What is the task, what were you doing most recently, and what should you do next?",
    expected: [
      `Task: ${codingTask}`,
      "Most recent steps:",
      "- I decided to store the id under 'session_id' instead of 'sid', the key the login view reads. | ran: sed -i 's/sid/session_id/' src/auth/session.py",
      "- Rerun the test. | ran: pytest tests/test_auth.py -q",
    ].join("\n"),
  },
  fix: {
    id: "decision:action@call_3",
    kind: "decision",
    question: "What did you change in src/auth/session.py, and why?",
    expected:
      "I decided to store the id under 'session_id' instead of 'sid', the key the login view reads.\nAction: sed -i 's/sid/session_id/' src/auth/session.py",
  },
  whyRead: {
    id: "decision:reasoning@call_2",
    kind: "decision",
    question: "Why did you decide to run the command `cat src/auth/session.py`?",
    expected: "The session store writes the key; read it.",
  },
  whyTest: {
    id: "decision:reasoning@call_1",
    kind: "decision",
    question: "Why did you decide to run the command `pytest tests/test_auth.py -q` (run 1 of 2)?",
    expected: "Run the failing test first.",
  },
};

const updateArguments = { reservation_id: "ABC123", flights: [{ flight_number: "HAT002", date: "2024-05-20" }], payment_id: "credit_card_1" };
const reservation = '{"reservation_id": "ABC123", "flights": [{"flight_number": "HAT001", "date": "2024-05-18"}]}';
/** A customer-service session with lookups and one change, no files. */
const airlineHistory = [
  user("u0", "Please move reservation ABC123 to the May 20 flight."),
  assistant("a1", "", [{ id: "call_a", name: "get_reservation_details", args: { reservation_id: "ABC123" } }]),
  toolResult("t2", "call_a", reservation, "get_reservation_details"),
  assistant("a3", "HAT002 leaves on 2024-05-20 at the same fare. Shall I move reservation ABC123 to it?"),
  user("u4", "Yes, please."),
  assistant("a5", "", [{ id: "call_b", name: "update_reservation_flights", args: updateArguments }]),
  toolResult("t6", "call_b", '{"reservation_id": "ABC123", "status": "updated"}', "update_reservation_flights"),
  assistant("a7", "Done: reservation ABC123 is now on HAT002 on 2024-05-20."),
  user("u8", "Thanks! Can I also add a bag?"),
];

describe("generateProbes", () => {
  it("asks one probe of each kind by default, with the answers the originals give", () => {
    expect(generateProbes({ originals: codingOriginals, history: codingHistory })).toEqual([
      codingProbes["request"],
      codingProbes["files"],
      codingProbes["next"],
      codingProbes["fix"],
    ]);
  });

  it("with perKind 3 adds the first failure, the changed files and the reasoning behind earlier calls, newest first", () => {
    expect(generateProbes({ originals: codingOriginals, history: codingHistory, perKind: 3 })).toEqual([
      codingProbes["request"],
      codingProbes["failure"],
      codingProbes["files"],
      codingProbes["changed"],
      codingProbes["next"],
      codingProbes["fix"],
      codingProbes["whyRead"],
      codingProbes["whyTest"],
    ]);
  });

  it("asks no artifact probe when no file was touched, and recalls results of calls with identifier arguments", () => {
    const task = "Please move reservation ABC123 to the May 20 flight.";
    const update = `update_reservation_flights(${JSON.stringify(updateArguments)})`;
    expect(generateProbes({ originals: airlineHistory.slice(0, 7), history: airlineHistory, perKind: 2 })).toEqual([
      {
        id: "recall:request",
        kind: "recall",
        question: "What was the user's original request? Restate it with its specifics (names, paths, values, constraints).",
        expected: task,
      },
      {
        id: "recall:result@call_a",
        kind: "recall",
        question: "What did the `get_reservation_details` call (reservation_id ABC123) return? Give the concrete values.",
        expected: reservation,
      },
      {
        id: "continuation:next",
        kind: "continuation",
        question: "What is the task, what were you doing most recently, and what should you do next?",
        expected: `Task: ${task}\nMost recent steps:\n- ran: ${update}\n- Done: reservation ABC123 is now on HAT002 on 2024-05-20.`,
      },
      {
        id: "decision:action@call_b",
        kind: "decision",
        question: "What did you do with the `update_reservation_flights` tool (reservation_id ABC123, payment_id credit_card_1): with which arguments, and why?",
        expected: `Action: ${update}`,
      },
    ]);
  });

  it("recalls no request that is still in the context, and finds the files of hidden results through their calls", () => {
    // Tool result hiding archives results only: their calls stay, and name the files.
    const originals = [codingHistory[3]!, codingHistory[5]!];
    expect(generateProbes({ originals, history: codingHistory })).toEqual([
      codingProbes["failure"],
      { ...codingProbes["files"], expected: "read: tests/test_auth.py, src/auth/session.py" },
      codingProbes["next"],
    ]);
  });

  it("makes one decision probe of several archived edits of one file, its steps in order", () => {
    const history = [
      user("u0", "Tidy config.py."),
      assistant("a1", "Rename the constant.", [{ id: "call_e1", args: { command: "sed -i 's/MAX/LIMIT/' config.py" } }]),
      toolResult("t2", "call_e1", ""),
      assistant("a3", "Drop the unused import.", [{ id: "call_e2", args: { command: "sed -i '/import os/d' config.py" } }]),
      toolResult("t4", "call_e2", ""),
      assistant("a5", "Done."),
    ];
    expect(generateProbes({ originals: history.slice(1, 5), history, perKind: 2 }).filter((probe) => probe.kind === "decision")).toEqual([
      {
        id: "decision:action@call_e2",
        kind: "decision",
        question: "What did you change in config.py, and why?",
        expected: "Rename the constant.\nAction: sed -i 's/MAX/LIMIT/' config.py\n\nDrop the unused import.\nAction: sed -i '/import os/d' config.py",
      },
    ]);
  });

  it("gives the same probes whatever order removed and replaced originals come in", () => {
    const shuffled = [...codingOriginals].reverse();
    expect(generateProbes({ originals: shuffled, history: codingHistory, perKind: 3 })).toEqual(
      generateProbes({ originals: codingOriginals, history: codingHistory, perKind: 3 }),
    );
  });

  it("asks nothing with perKind 0", () => {
    expect(generateProbes({ originals: codingOriginals, history: codingHistory, perKind: 0 })).toEqual([]);
  });

  it("rejects a perKind that is not a non-negative integer", async () => {
    const error = await caught(() => generateProbes({ originals: codingOriginals, history: codingHistory, perKind: 1.5 }));
    expect(InvalidOptionError.isInstance(error) && { option: error.option, component: error.component }).toEqual({ option: "perKind", component: "generateProbes" });
  });
});

describe("archivedOriginals", () => {
  it("lists removed messages and replaced originals in input order", () => {
    const [first, second, third] = [codingHistory[1]!, codingHistory[3]!, codingHistory[5]!];
    const result = {
      removed: [{ index: 1, message: first }, { index: 5, message: third }],
      replaced: [{ index: 3, before: second, after: toolResult("t3", "call_1", "[hidden]") }],
    };
    expect(archivedOriginals(result)).toEqual([first, second, third]);
  });
});

describe("generateProbes on a real trace's first compaction", () => {
  const session = loadTraceSessions(defaultTracesPath()).find((each) => each.id === "mini-swe-agent/pytest-dev__pytest-7490")!;
  const history = session.messages.slice(0, 30);

  it("after tool result hiding: recall, artifact and continuation, with the files of the hidden exchanges", async () => {
    // Oldest-first hiding alone, as the probes below were written for.
    const result = await toolResultHiding({ ...EVERY_RUN, keepRecentGroups: 5, supersession: false }).compact(history);
    const probes = generateProbes({ originals: archivedOriginals(result), history, perKind: 2 });
    expect(probes.map((probe) => [probe.id, probe.kind])).toEqual([
      ["recall:outcome@call_4", "recall"],
      ["recall:outcome@call_9", "recall"],
      ["artifact:files", "artifact"],
      ["continuation:next", "continuation"],
    ]);
    expect(probes.slice(0, 2).map((probe) => [probe.question, probe.expected])).toEqual([
      [
        "What did the command `pytest -rsx reproduce_issue.py` (run 1 of 2) report? Quote the key lines (errors, test results).",
        "E       assert 0\nreproduce_issue.py:6: AssertionError\n============================== 1 failed in 0.02s ===============================",
      ],
      [
        "What did the command `pytest -rsx reproduce_issue.py` (run 2 of 2) report? Quote the key lines (errors, test results).",
        "E       assert 0\nreproduce_issue.py:6: AssertionError\n============================== 1 failed in 0.01s ===============================",
      ],
    ]);
    // reproduce_issue.py's creation answered with an empty output, too short to hide: it stayed.
    expect(probes[2]!.expected).toBe("read: src/_pytest, src/_pytest/skipping.py, reproduce_issue.py");
  });

  it("after a state snapshot: all four kinds, with the created and modified files and the archived edits", async () => {
    const result = await stateSnapshotSummary({ trigger: { tokens: 100 } }).compact(history);
    expect(result.status).toBe("summarized");
    const probes = generateProbes({ originals: archivedOriginals(result), history, perKind: 2 });
    expect(probes.map((probe) => [probe.id, probe.kind])).toEqual([
      ["recall:request", "recall"],
      ["recall:outcome@call_4", "recall"],
      ["artifact:files", "artifact"],
      ["artifact:changed", "artifact"],
      ["continuation:next", "continuation"],
      ["decision:action@call_7", "decision"],
      ["decision:action@call_2", "decision"],
    ]);
    expect(probes.filter((probe) => probe.kind === "artifact").map((probe) => probe.expected)).toEqual([
      "created: reproduce_issue.py\nmodified: src/_pytest/skipping.py\nread: reproduce_issue.py, src/_pytest, src/_pytest/skipping.py",
      "created: reproduce_issue.py\nmodified: src/_pytest/skipping.py",
    ]);
    expect(probes.filter((probe) => probe.kind === "decision").map((probe) => probe.question)).toEqual([
      "What did you change in src/_pytest/skipping.py, and why?",
      "What did you change in reproduce_issue.py, and why?",
    ]);
  });
});

const fullMarks = { accuracy: 5, context_awareness: 5, artifact_trail: 5, completeness: 5, continuity: 5, instruction_following: 5 };
const judgeJson = (scores: Record<string, unknown>, rationale: string) => JSON.stringify({ ...scores, rationale });
const answerMessage = (question: string) => new HumanMessage(fillTemplate(PROBE_ANSWER_PROMPT, { question }));
const judgeMessage = (probe: Probe, answer: string) =>
  new HumanMessage(fillTemplate(PROBE_JUDGE_PROMPT, { question: probe.question, expected: probe.expected, answer }));
const NOT_SCORED = Object.fromEntries(PROBE_DIMENSIONS.map((dimension) => [dimension, Number.NaN]));

describe("runProbes", () => {
  const context = [system("s0", "You are a coding agent."), user("summary", "Summary: we fixed src/auth/session.py."), assistant("a8", "Tests pass.")];
  const probes = [codingProbes["files"]!, codingProbes["fix"]!];

  it("asks each probe after the context and judges the answer against the expected one", async () => {
    const answerModel = fakeModel().respond(new AIMessage("modified: src/auth/session.py")).respond(new AIMessage("Renamed the key."));
    const judgeModel = fakeModel()
      .respond(new AIMessage(judgeJson(fullMarks, "all files named")))
      .respond(new AIMessage(judgeJson({ ...fullMarks, accuracy: 3, completeness: 2 }, "no reason given")));
    const results = await runProbes({ answerModel, judgeModel, context, probes });
    expect(answerModel.calls.map((call) => call.messages)).toEqual([
      [...context, answerMessage(probes[0]!.question)],
      [...context, answerMessage(probes[1]!.question)],
    ]);
    expect(judgeModel.calls.map((call) => call.messages)).toEqual([
      [judgeMessage(probes[0]!, "modified: src/auth/session.py")],
      [judgeMessage(probes[1]!, "Renamed the key.")],
    ]);
    expect(results).toEqual([
      { probe: probes[0], answer: "modified: src/auth/session.py", scores: fullMarks, rationale: "all files named" },
      { probe: probes[1], answer: "Renamed the key.", scores: { ...fullMarks, accuracy: 3, completeness: 2 }, rationale: "no reason given" },
    ]);
  });

  it("reads a fenced JSON reply with numeric strings and clamps scores to 0..5", async () => {
    const reply = '```json\n{"accuracy": 7, "context_awareness": -1, "artifact_trail": "4", "completeness": 2.5, "continuity": 3, "instruction_following": 5, "rationale": "close"}\n```';
    const results = await runProbes({
      answerModel: fakeModel().respond(new AIMessage("an answer")),
      judgeModel: fakeModel().respond(new AIMessage(reply)),
      context,
      probes: [probes[0]!],
    });
    expect(results).toEqual([
      {
        probe: probes[0],
        answer: "an answer",
        scores: { accuracy: 5, context_awareness: 0, artifact_trail: 4, completeness: 2.5, continuity: 3, instruction_following: 5 },
        rationale: "close",
      },
    ]);
  });

  it("flags a judge reply that is not valid JSON as unscored, with NaN scores, and goes on", async () => {
    const results = await runProbes({
      answerModel: fakeModel().respond(new AIMessage("first")).respond(new AIMessage("second")),
      judgeModel: fakeModel()
        .respond(new AIMessage('{"accuracy": 5, "context_awareness": 4,'))
        .respond(new AIMessage(judgeJson(fullMarks, "fine"))),
      context,
      probes,
    });
    expect(results).toEqual([
      {
        probe: probes[0],
        answer: "first",
        scores: NOT_SCORED,
        rationale: "",
        unscored: `no JSON object in the judge's reply: {"accuracy": 5, "context_awareness": 4,`,
      },
      { probe: probes[1], answer: "second", scores: fullMarks, rationale: "fine" },
    ]);
  });

  it("runs every call as a child of the caller's config, tagged compaction-eval", async () => {
    const starts: { tags: string[] | undefined; runName: string | undefined; metadata: Record<string, unknown> }[] = [];
    const recorder = BaseCallbackHandler.fromMethods({
      handleChatModelStart(_llm, _messages, _runId, _parentRunId, _extra, tags, metadata, runName) {
        const { probe_id, probe_kind, probe_role, experiment } = metadata ?? {};
        starts.push({ tags, runName, metadata: { probe_id, probe_kind, probe_role, experiment } });
      },
    });
    await runProbes({
      answerModel: fakeModel().respond(new AIMessage("answer")),
      judgeModel: fakeModel().respond(new AIMessage(judgeJson(fullMarks, "ok"))),
      context,
      probes: [probes[1]!],
      config: { callbacks: [recorder], tags: ["nightly"], metadata: { experiment: "window-16k" }, runName: "eval step" },
    });
    await awaitAllCallbacks();
    const metadata = (role: string) => ({ probe_id: "decision:action@call_3", probe_kind: "decision", probe_role: role, experiment: "window-16k" });
    expect(starts).toEqual([
      { tags: ["nightly", "compaction-eval"], runName: "probe_answer", metadata: metadata("answer") },
      { tags: ["nightly", "compaction-eval"], runName: "probe_judge", metadata: metadata("judge") },
    ]);
  });

  it("asks against a repaired copy when the context ends with a call that has no result", async () => {
    const pending = assistant("a9", "Checking.", [{ id: "call_9", args: { command: "ls" } }]);
    const answerModel = fakeModel().respond(new AIMessage("answer"));
    await runProbes({
      answerModel,
      judgeModel: fakeModel().respond(new AIMessage(judgeJson(fullMarks, "ok"))),
      context: [...context, pending],
      probes: [probes[0]!],
    });
    expect(answerModel.calls[0]!.messages).toEqual([...context, new AIMessage({ id: "a9", content: "Checking.", tool_calls: [] }), answerMessage(probes[0]!.question)]);
  });
});

describe("parseJudgeReply", () => {
  it("accepts scores nested under `scores`, keys in any case and separators, and text around the object", () => {
    const reply = 'Here is my grading: {"scores": {"Accuracy": 4, "Context Awareness": 3, "artifact-trail": 2, "COMPLETENESS": 1, "continuity": 0, "instructionFollowing": 5}, "rationale": " terse "} Thanks.';
    expect(parseJudgeReply(reply)).toEqual({
      scores: { accuracy: 4, context_awareness: 3, artifact_trail: 2, completeness: 1, continuity: 0, instruction_following: 5 },
      rationale: "terse",
    });
  });

  it("says which dimension is missing", () => {
    const { continuity: _continuity, ...partial } = fullMarks;
    expect(parseJudgeReply(judgeJson(partial, "forgot one"))).toEqual({
      error: `the judge's reply has no numeric score for continuity: ${judgeJson(partial, "forgot one")}`,
    });
  });

  it("says when the object does not parse", () => {
    expect(parseJudgeReply("{accuracy: 5}")).toEqual({
      error: "the judge's reply is not valid JSON: {accuracy: 5}",
    });
  });
});

function result(kind: ProbeKind, scores: Record<ProbeDimension, number>, unscored?: string): ProbeResult {
  const probe = { id: `${kind}:x`, kind, question: "q", expected: "e" };
  return { probe, answer: "a", scores, rationale: "", ...(unscored === undefined ? {} : { unscored }) };
}
const uniform = (score: number) => Object.fromEntries(PROBE_DIMENSIONS.map((dimension) => [dimension, score])) as Record<ProbeDimension, number>;

describe("aggregateProbeResults", () => {
  it("averages per kind, per dimension and overall", () => {
    const results = [
      result("recall", uniform(5)),
      result("recall", { ...uniform(2), accuracy: 5 }),
      result("artifact", { ...uniform(3), artifact_trail: 0 }),
      result("decision", uniform(4)),
    ];
    expect(aggregateProbeResults(results)).toEqual({
      count: 4,
      unscored: 0,
      // recall: (30 + 15) / 12; artifact: 15 / 6.
      byKind: { recall: 3.75, artifact: 2.5, continuation: Number.NaN, decision: 4 },
      byDimension: { accuracy: 4.25, context_awareness: 3.5, artifact_trail: 2.75, completeness: 3.5, continuity: 3.5, instruction_following: 3.5 },
      // (30 + 15 + 15 + 24) / 24
      overall: 3.5,
    });
  });

  it("leaves unscored results out of the means and counts them", () => {
    const results = [result("recall", uniform(4)), result("recall", NOT_SCORED as Record<ProbeDimension, number>, "no JSON object")];
    expect(aggregateProbeResults(results)).toEqual({
      count: 1,
      unscored: 1,
      byKind: { recall: 4, artifact: Number.NaN, continuation: Number.NaN, decision: Number.NaN },
      byDimension: uniform(4),
      overall: 4,
    });
  });

  it("gives NaN means for no results", () => {
    expect(aggregateProbeResults([])).toEqual({
      count: 0,
      unscored: 0,
      byKind: { recall: Number.NaN, artifact: Number.NaN, continuation: Number.NaN, decision: Number.NaN },
      byDimension: uniform(Number.NaN),
      overall: Number.NaN,
    });
  });
});

describe("judgeFromEnvironment", () => {
  const settingsOf = (model: unknown) => {
    const chat = model as ChatOpenAI;
    return { isChatOpenAI: chat instanceof ChatOpenAI, model: chat.model, temperature: chat.temperature, apiKey: chat.apiKey, baseURL: chat.clientConfig.baseURL };
  };

  it("skips without OPENAI_API_KEY", () => {
    expect(judgeFromEnvironment({ EVAL_JUDGE_MODEL: "gpt-4o" })).toEqual({ skipped: NO_JUDGE_REASON });
  });

  it("builds ChatOpenAI models with the default names from a key", () => {
    const judge = judgeFromEnvironment({ OPENAI_API_KEY: "sk-test" });
    expect("skipped" in judge ? judge : { name: judge.name, answer: settingsOf(judge.answerModel), judge: settingsOf(judge.judgeModel) }).toEqual({
      name: "answers gpt-4o-mini, judge gpt-4o",
      answer: { isChatOpenAI: true, model: "gpt-4o-mini", temperature: 0, apiKey: "sk-test", baseURL: undefined },
      judge: { isChatOpenAI: true, model: "gpt-4o", temperature: 0, apiKey: "sk-test", baseURL: undefined },
    });
  });

  it("takes the model names and the endpoint from the environment, leaving a reasoning model's temperature alone", () => {
    const judge = judgeFromEnvironment({
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      EVAL_ANSWER_MODEL: "gpt-4.1-nano",
      EVAL_JUDGE_MODEL: "o3-mini",
    });
    expect("skipped" in judge ? judge : { name: judge.name, answer: settingsOf(judge.answerModel), judge: settingsOf(judge.judgeModel) }).toEqual({
      name: "answers gpt-4.1-nano, judge o3-mini",
      answer: { isChatOpenAI: true, model: "gpt-4.1-nano", temperature: 0, apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" },
      judge: { isChatOpenAI: true, model: "o3-mini", temperature: undefined, apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" },
    });
  });

  it("skips with a key when @langchain/openai is not installed", () => {
    expect(judgeFromEnvironment({ OPENAI_API_KEY: "sk-test" }, null)).toEqual({
      skipped: "no judge model: OPENAI_API_KEY is set but @langchain/openai is not installed (npm install @langchain/openai)",
    });
  });
});
