import type { z } from "zod/v4";
import { InvalidOptionError } from "./errors.js";
import { describeValue } from "./option-errors.js";

const TYPE_WORDS: Record<string, string> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  function: "a function",
};

type Issue = z.core.$ZodIssue;

const SIZE_UNITS: Record<string, string> = { string: "characters", array: "items", set: "items" };

/** A bound issue (`too_small`, `too_big`) in words: "a number > 0", "a non-empty string", "an array of at most 3 items". */
function bound(issue: Issue & { code: "too_small" | "too_big" }): string {
  const limit = issue.code === "too_small" ? issue.minimum : issue.maximum;
  const unit = SIZE_UNITS[issue.origin];
  if (unit === undefined) return `${TYPE_WORDS[issue.origin] ?? issue.origin} ${issue.code === "too_small" ? ">" : "<"}${issue.inclusive ? "=" : ""} ${String(limit)}`;
  const noun = TYPE_WORDS[issue.origin] ?? issue.origin;
  if (issue.code === "too_small" && Number(limit) === 1 && issue.inclusive !== false) return `a non-empty ${noun.replace(/^an? /, "")}`;
  const which = issue.exact ? "exactly" : issue.code === "too_small" ? "at least" : "at most";
  return `${noun} of ${which} ${String(limit)} ${unit}`;
}

/** What an issue says the option takes ("a number <= 1"), without zod's "Invalid input" and "expected" wording. */
function takes(issue: Issue): string {
  if (issue.code === "invalid_type") return TYPE_WORDS[issue.expected] ?? issue.expected;
  if (issue.code === "invalid_union") {
    // A union with its own message says what it takes; else each branch's expected type.
    if (issue.message && issue.message !== "Invalid input") return issue.message.replace(/^expected /, "");
    const branches = issue.errors.map((branch) => branch.find((inner) => inner.path.length === 0)).filter((inner): inner is Issue => inner !== undefined);
    const expected = [...new Set(branches.map(takes))];
    return expected.length > 0 ? expected.join(" or ") : "one of the accepted forms";
  }
  if ((issue.code === "too_small" || issue.code === "too_big") && /^Too (small|big)/.test(issue.message)) return bound(issue);
  // Custom messages are written "expected ..."; zod's own as "Invalid option: expected one of ...".
  const text = issue.message.replace(/^Invalid (input|option|value): /, "").replace(/^expected /, "");
  // zod lists literals as "a"|"b": as a list.
  return text.startsWith("one of ") ? text.replaceAll('"|"', '", "') : text;
}

/** The value at `path` in `options`, read without calling anything but plain property reads. */
function valueAt(options: unknown, path: readonly PropertyKey[]): unknown {
  let value = options;
  try {
    for (const key of path) {
      if (typeof value !== "object" || value === null) return undefined;
      value = (value as Record<PropertyKey, unknown>)[key];
    }
  } catch {
    return undefined;
  }
  return value;
}

/** The known name closest to `name` (at most two edits away, or differing only in case), if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
    let beforePrevious = previous;
    for (let i = 1; i <= a.length; i += 1) {
      const row = [i];
      for (let j = 1; j <= b.length; j += 1) {
        row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        // Two neighbouring letters swapped count as one edit.
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, beforePrevious[j - 2]! + 1);
      }
      beforePrevious = previous;
      previous = row;
    }
    return previous[b.length]!;
  };
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = candidate.toLowerCase() === name.toLowerCase() ? 0 : distance(name, candidate);
    if (d <= 2 && (!best || d < best.distance)) best = { name: candidate, distance: d };
  }
  return best?.name;
}

type SchemaNode = { shape?: Record<string, unknown>; def?: { type?: string; innerType?: unknown; in?: unknown; options?: unknown[]; element?: unknown } };

/** The object keys a schema accepts at `path` (through optional, default, pipe, union and array schemas), if it can tell. */
function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  const node = schema as SchemaNode | undefined;
  const type = node?.def?.type;
  if (type === "optional" || type === "nullable" || type === "default" || type === "readonly" || type === "catch") return keysAt(node!.def!.innerType, path);
  if (type === "pipe") return keysAt(node!.def!.in, path);
  if (type === "union") {
    for (const option of node!.def!.options ?? []) {
      const keys = keysAt(option, path);
      if (keys) return keys;
    }
    return undefined;
  }
  const [key, ...rest] = path;
  if (type === "array") return typeof key === "number" ? keysAt(node!.def!.element, rest) : undefined;
  if (!node?.shape) return undefined;
  if (key === undefined) return Object.keys(node.shape);
  return typeof key === "string" && key in node.shape ? keysAt(node.shape[key], rest) : undefined;
}

/**
 * Validate options once, at construction. The first problem becomes an {@link InvalidOptionError}
 * naming the option by its dotted path, what it takes and what it got.
 * @internal
 */
export function parseOptions<Schema extends z.ZodType>(component: string, schema: Schema, options: unknown): z.output<Schema> {
  const parsed = schema.safeParse(options ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const known = keysAt(schema, issue.path);
    const near = known && closest(key, known);
    throw new InvalidOptionError(component, [path, key].filter(Boolean).join("."), {
      got: "an unknown option",
      expected: known ? `one of the options ${known.join(", ")}` : "a known option",
      ...(near ? { reason: `did you mean ${near}?` } : {}),
    });
  }
  // A refinement may say why in its params: refine(check, { message: "expected ...", params: { reason } }).
  const reason: unknown = issue.code === "custom" ? issue.params?.["reason"] : undefined;
  throw new InvalidOptionError(component, path || "(options)", {
    got: describeValue(valueAt(options, issue.path)),
    expected: takes(issue),
    ...(typeof reason === "string" ? { reason } : {}),
  });
}
