// The probe models from the environment: ChatOpenAI for answers and judging, when a key is set.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

type OpenAIModule = typeof import("@langchain/openai");

/**
 * `@langchain/openai`, loaded once when this module loads, if it is installed (it is an optional
 * peer dependency; the evaluation runs offline without it).
 */
const installedOpenAI: OpenAIModule | undefined = await import("@langchain/openai").catch(() => undefined);

/** Reasoning models reject a temperature other than the default. */
const FIXED_TEMPERATURE_MODEL = /^(?:o\d|gpt-5)/i;

/** The models {@link judgeFromEnvironment} uses when the environment names none. */
export const DEFAULT_ANSWER_MODEL = "gpt-4o-mini";
/** @see DEFAULT_ANSWER_MODEL */
export const DEFAULT_JUDGE_MODEL = "gpt-4o";

/** What {@link judgeFromEnvironment} says when no key is set. */
export const NO_JUDGE_REASON = "no judge model: set OPENAI_API_KEY (and EVAL_JUDGE_MODEL) to run probes";

/**
 * The probe models from the environment: with `OPENAI_API_KEY`, `ChatOpenAI` for answers
 * (`EVAL_ANSWER_MODEL`, default `gpt-4o-mini`) and for judging (`EVAL_JUDGE_MODEL`, default `gpt-4o`),
 * at temperature 0 where the model accepts it, against `OPENAI_BASE_URL` when set. Without a key,
 * or without `@langchain/openai` installed, `{ skipped }` says why. Builds the models only; no call
 * is made.
 *
 * @param env @default process.env
 * @param openai The `@langchain/openai` module; `null` stands for "not installed". @default the installed one
 * @example
 * const judge = judgeFromEnvironment();
 * if ("skipped" in judge) console.log(`probes: skipped (${judge.skipped})`);
 * else await runProbes({ ...judge, context, probes });
 */
export function judgeFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  openai: OpenAIModule | null = installedOpenAI ?? null,
): { answerModel: BaseChatModel; judgeModel: BaseChatModel; name: string } | { skipped: string } {
  const apiKey = env["OPENAI_API_KEY"]?.trim();
  if (!apiKey) return { skipped: NO_JUDGE_REASON };
  if (openai === null) return { skipped: "no judge model: OPENAI_API_KEY is set but @langchain/openai is not installed (npm install @langchain/openai)" };
  const baseURL = env["OPENAI_BASE_URL"]?.trim();
  const build = (model: string) =>
    new openai.ChatOpenAI({
      model,
      apiKey,
      ...(FIXED_TEMPERATURE_MODEL.test(model) ? {} : { temperature: 0 }),
      ...(baseURL ? { configuration: { baseURL } } : {}),
    }) as unknown as BaseChatModel;
  const answerName = env["EVAL_ANSWER_MODEL"]?.trim() || DEFAULT_ANSWER_MODEL;
  const judgeName = env["EVAL_JUDGE_MODEL"]?.trim() || DEFAULT_JUDGE_MODEL;
  return { answerModel: build(answerName), judgeModel: build(judgeName), name: `answers ${answerName}, judge ${judgeName}` };
}
