/** The tiktoken encodings this package loads. */
export type TokenEncodingName = "o200k_base" | "cl100k_base";

const CL100K_PREFIXES = ["gpt-4", "gpt-3.5", "gpt-35", "text-embedding-ada", "text-embedding-3"];
const O200K_PREFIXES = ["gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3", "o4"];

/**
 * The tiktoken encoding for a model name: `o200k_base` for gpt-4o, gpt-4.1, gpt-5 and the o-series,
 * `cl100k_base` for gpt-4 and gpt-3.5, and `o200k_base` for anything else (other providers' models
 * included: it is the closest public encoding to current tokenizers).
 *
 * A provider prefix (`openai:gpt-4o`, `openai/gpt-4o`) is ignored.
 *
 * @example
 * encodingForModel("gpt-4o-mini"); // "o200k_base"
 * encodingForModel("gpt-4-turbo"); // "cl100k_base"
 */
export function encodingForModel(model: string): TokenEncodingName {
  const name = model.trim().toLowerCase().replace(/^[a-z0-9_-]+[:/]/, "");
  if (O200K_PREFIXES.some((prefix) => name.startsWith(prefix))) return "o200k_base";
  if (CL100K_PREFIXES.some((prefix) => name.startsWith(prefix))) return "cl100k_base";
  return "o200k_base";
}
