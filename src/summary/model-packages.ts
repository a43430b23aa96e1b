// Which packages a summary model named by a string needs, checked when a strategy, policy or
// middleware is created, so a missing provider package is an error then, not a silent truncation later.
import { MissingPackageError } from "../errors.js";
import { isInstalled } from "../peers.js";

/**
 * The package of each `provider:` prefix LangChain's `initChatModel` knows (its
 * `MODEL_PROVIDER_CONFIG`; a test checks that this table agrees with the installed `langchain`).
 */
export const PROVIDER_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  openai: "@langchain/openai",
  anthropic: "@langchain/anthropic",
  azure_openai: "@langchain/openai",
  langsmith: "@langchain/openai",
  cohere: "@langchain/cohere",
  google: "@langchain/google",
  "google-vertexai": "@langchain/google-vertexai",
  "google-vertexai-web": "@langchain/google-vertexai-web",
  "google-genai": "@langchain/google-genai",
  ollama: "@langchain/ollama",
  mistralai: "@langchain/mistralai",
  mistral: "@langchain/mistralai",
  groq: "@langchain/groq",
  bedrock: "@langchain/aws",
  aws: "@langchain/aws",
  deepseek: "@langchain/deepseek",
  xai: "@langchain/xai",
  cerebras: "@langchain/cerebras",
  fireworks: "@langchain/fireworks",
  together: "@langchain/together-ai",
  perplexity: "@langchain/perplexity",
});

/** LangChain's `_inferModelProvider` for a bare name (same rules; the test compares them). */
export function inferredProvider(name: string): string | undefined {
  const starts = (...prefixes: string[]) => prefixes.some((prefix) => name.startsWith(prefix));
  if (starts("gpt-3", "gpt-4", "gpt-5", "o1", "o3", "o4")) return "openai";
  if (starts("claude")) return "anthropic";
  if (starts("command")) return "cohere";
  if (starts("accounts/fireworks")) return "fireworks";
  if (starts("gemini")) return "google-vertexai";
  if (starts("amazon.")) return "bedrock";
  if (starts("mistral")) return "mistralai";
  if (starts("sonar", "pplx")) return "perplexity";
  return undefined;
}

/**
 * The packages a model name needs, as `resolveSummaryModel` builds it: a `provider:` prefix LangChain
 * knows, or a bare name it infers a provider other than OpenAI for, needs `langchain` and that
 * provider's package (when `langchain` is installed); any other name (an unknown prefix such as
 * OpenAI's fine-tuned `ft:`) needs `@langchain/openai`, except a `word:` name without `langchain`
 * installed, which needs `langchain`.
 */
export function packagesForModelName(name: string): string[] {
  const colon = name.indexOf(":");
  const prefix = colon > 0 ? name.slice(0, colon) : undefined;
  const withLangChain = isInstalled("langchain");
  if (prefix !== undefined && Object.hasOwn(PROVIDER_PACKAGES, prefix)) return ["langchain", PROVIDER_PACKAGES[prefix]!];
  // Without langchain, any `word:` prefix is taken for a provider (resolveSummaryModel refuses it).
  if (prefix !== undefined && /^[\w-]+$/.test(prefix) && !withLangChain) return ["langchain"];
  const inferred = inferredProvider(name);
  if (withLangChain && inferred !== undefined && inferred !== "openai") return ["langchain", PROVIDER_PACKAGES[inferred]!];
  return ["@langchain/openai"];
}

/**
 * Throw when a summary model named by a string needs a package that is not installed.
 * @throws {MissingPackageError} naming the option, the model and every package to install.
 */
export function assertModelPackages(component: string, option: string, model: unknown): void {
  if (typeof model !== "string") return;
  const missing = packagesForModelName(model).filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  throw new MissingPackageError(
    missing,
    `${component}: \`${option}\` "${model}" needs ${missing.join(" and ")}, which ${missing.length === 1 ? "is" : "are"} not installed: ` +
      `npm install ${missing.join(" ")} (or pass a chat model object)`,
  );
}
