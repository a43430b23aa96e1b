/**
 * The command line of `npm run eval` (bench/eval/run.ts): its flags, the systems `--system` and
 * `--variant` select, and the usage errors (exit code 2).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { autoCompaction, toolResultHiding, type AutoCompactionOptions, type ToolResultHidingOptions } from "../../src/index.js";
import { defaultTracesPath } from "../../examples/traces.js";
import { DEFAULT_PRICES, type Prices } from "./metrics.js";
import { RECOMMENDED_DEFAULT, ours, type SystemSpec } from "./systems.js";

/** The default windows. */
export const DEFAULT_WINDOWS: readonly number[] = [16_000, 32_000, 64_000, 128_000, 200_000];
const DEFAULT_SUMMARY_MODEL = "gpt-4o-mini";

/** A `--variant`: a strategy of ours with some options changed, reported as its own row. */
export type VariantSpec = { readonly system: "autoCompaction"; readonly options: AutoCompactionOptions } | { readonly system: "toolResultHiding"; readonly options: ToolResultHidingOptions };

/** The parsed command line. */
export interface CliArgs {
  readonly tracesPath: string;
  readonly windows: number[];
  /** Where the report goes: `--out`, resolved; `undefined` for a new temporary folder (run.ts makes it and prints it). */
  readonly out: string | undefined;
  readonly summaryModel: string;
  /** The reference prices of the headline tables. */
  readonly prices: Prices;
  readonly traces: string[];
  /** `--system` filters: exact names or substrings of ours; empty: every system. */
  readonly systems: string[];
  readonly chartTrace: string | undefined;
  readonly variants: VariantSpec[];
  readonly probeCompactions: number;
  /** Also run the frontier sweep (frontier.ts). */
  readonly frontier: boolean;
  readonly quiet: boolean;
  readonly help: boolean;
}

/** The usage line printed with a usage error and for `--help`. */
export const USAGE =
  "usage: npm run eval -- [--traces <file.jsonl>] [--window <tokens>[,<tokens>]]... [--out <dir>] [--summary-model <name>]\n" +
  "                       [--price-input <n>] [--price-cache-write <n>] [--price-cached <n>] [--price-output <n>]\n" +
  "                       [--trace <id>]... [--system <name>]... [--chart-trace <id>]\n" +
  '                       [--variant <options as JSON, "system": "toolResultHiding" for that strategy>]... [--probe-compactions <n>|all] [--frontier] [--quiet]\n' +
  "--out: the folder to write the report to (default: a new temporary folder, printed); npm run eval:commit rewrites the committed bench/ report";

/** A mistake in the command line: reported with the usage, exit code 2. */
export class UsageError extends Error {}

/** `text` as a number: "positive integer" (e.g. a window), "non-negative integer" (a count), or "non-negative number" (a price). */
function numberArg(flag: string, text: string, kind: "positive integer" | "non-negative integer" | "non-negative number"): number {
  const value = text.trim() === "" ? Number.NaN : Number(text.replace(/_/g, ""));
  const valid = Number.isFinite(value) && value >= 0 && (kind === "non-negative number" || Number.isInteger(value)) && (kind !== "positive integer" || value > 0);
  if (!valid) throw new UsageError(`${flag} must be a ${kind}, got "${text}"`);
  return value;
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      traces: { type: "string" },
      window: { type: "string", multiple: true },
      out: { type: "string" },
      "summary-model": { type: "string" },
      "price-input": { type: "string" },
      "price-cache-write": { type: "string" },
      "price-cached": { type: "string" },
      "price-output": { type: "string" },
      trace: { type: "string", multiple: true },
      system: { type: "string", multiple: true },
      "chart-trace": { type: "string" },
      variant: { type: "string", multiple: true },
      "probe-compactions": { type: "string" },
      frontier: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
}

/** A `--variant` JSON object: `"system"` picks the strategy (default autoCompaction), the rest are its options. */
export function parseVariant(text: string): VariantSpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`--variant must be a JSON object of options, got ${text}`);
  const { system = RECOMMENDED_DEFAULT, ...options } = parsed as { system?: unknown };
  if (system === "toolResultHiding") return { system, options: options as ToolResultHidingOptions };
  if (system === "autoCompaction") return { system, options: options as AutoCompactionOptions };
  throw new UsageError(`--variant "system" must be "autoCompaction" or "toolResultHiding", got ${JSON.stringify(system)}`);
}

/**
 * The parsed command line. Prices default to the reference prices (input 1, cached input 0.1,
 * output 4); the cache-write price defaults to the input price.
 */
export function parseCli(argv: readonly string[]): CliArgs {
  let values: ReturnType<typeof parseOptions>["values"];
  try {
    values = parseOptions(argv).values;
  } catch (error) {
    // node:util's parseArgs throws a TypeError (code ERR_PARSE_ARGS_*) for an unknown flag or a missing value.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const windows = (values.window ?? []).flatMap((value) => value.split(",")).filter((value) => value.trim() !== "").map((value) => numberArg("--window", value.trim(), "positive integer"));
  const price = (flag: "price-input" | "price-cache-write" | "price-cached" | "price-output", fallback: number) => {
    const text = values[flag];
    return text === undefined ? fallback : numberArg(`--${flag}`, text, "non-negative number");
  };
  const input = price("price-input", DEFAULT_PRICES.input);
  return {
    tracesPath: resolve(values.traces ?? defaultTracesPath()),
    windows: windows.length > 0 ? [...new Set(windows)].sort((a, b) => a - b) : [...DEFAULT_WINDOWS],
    out: values.out === undefined ? undefined : resolve(values.out),
    summaryModel: values["summary-model"] ?? DEFAULT_SUMMARY_MODEL,
    prices: { input, cacheWrite: price("price-cache-write", input), cachedInput: price("price-cached", DEFAULT_PRICES.cachedInput), output: price("price-output", DEFAULT_PRICES.output) },
    traces: values.trace ?? [],
    systems: values.system ?? [],
    chartTrace: values["chart-trace"],
    variants: (values.variant ?? []).map(parseVariant),
    // Probes after each compaction; a number caps the compactions probed per trace and system (a judge costs money).
    probeCompactions:
      values["probe-compactions"] === undefined || values["probe-compactions"] === "all"
        ? Number.POSITIVE_INFINITY
        : numberArg("--probe-compactions", values["probe-compactions"], "non-negative integer"),
    frontier: values.frontier === true,
    quiet: values.quiet === true,
    help: values.help === true,
  };
}

/** The row of a `--variant`: named `<system> <options as JSON>`. */
export function variantSystem(variant: VariantSpec): SystemSpec {
  const name = `${variant.system} ${JSON.stringify(variant.options)}`;
  if (variant.system === "toolResultHiding") return ours(name, ({ tokenCounter }) => toolResultHiding({ tokenCounter, ...variant.options }));
  return ours(name, ({ window, tokenCounter, model }) => autoCompaction({ contextWindow: window, tokenCounter, summaryModel: model, ...variant.options }));
}

/**
 * The systems to run: with no `--system`, every system; else no compaction and the LangChain rows
 * (always, so every ratio can be computed) and each system of ours a filter names exactly or, for a
 * filter that names none exactly, contains. Variants come last. A filter that selects nothing is a
 * usage error.
 *
 * @example
 * selectSystems(ALL_SYSTEMS, ["autoCompaction"]); // no compaction, the 3 LangChain rows, autoCompaction
 */
export function selectSystems(all: readonly SystemSpec[], filters: readonly string[], variants: readonly VariantSpec[] = []): SystemSpec[] {
  const extra = variants.map(variantSystem);
  if (filters.length === 0) return [...all, ...extra];
  const chosen = new Set<string>();
  for (const filter of filters) {
    const exact = all.filter((spec) => spec.name === filter);
    const matches = exact.length > 0 ? exact : all.filter((spec) => spec.name.includes(filter));
    if (matches.length === 0) throw new UsageError(`--system ${filter}: no system matches (${all.map((spec) => spec.name).join(", ")})`);
    for (const spec of matches) chosen.add(spec.name);
  }
  return [...all.filter((spec) => spec.kind !== "ours" || chosen.has(spec.name)), ...extra];
}
