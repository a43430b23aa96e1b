import type { z } from "zod/v4";
import { InvalidOptionError } from "./errors.js";

/** A value as an error message shows it: short, with its kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "function") return "a function";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
    if (name && name !== "Object") return `a ${name}`;
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch {
      text = "{...}";
    }
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  }
  return typeof value;
}

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

/** What an issue says the option takes, without zod's "Invalid input" and "received ..." wording. */
function takes(issue: Issue): string {
  if (issue.code === "invalid_type") return `expected ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
  if (issue.code === "invalid_union") {
    // A union with its own message says what it takes; else each branch's expected type.
    if (issue.message && issue.message !== "Invalid input") return issue.message;
    const branches = issue.errors.map((branch) => branch.find((inner) => inner.path.length === 0)).filter((inner): inner is Issue => inner !== undefined);
    const expected = [...new Set(branches.map((inner) => takes(inner).replace(/^expected /, "")))];
    return expected.length > 0 ? `expected ${expected.join(" or ")}` : "not one of the accepted forms";
  }
  const message = issue.message.replace(/^Invalid (input|option): /, "").replace(/^Too (small|big): /, "");
  // zod's "expected number to be >0" as "expected a number > 0".
  const bound = /^expected (\w+) to (?:be|have) ([<>]=?)(.+)$/.exec(message);
  return bound ? `expected ${TYPE_WORDS[bound[1]!] ?? bound[1]} ${bound[2]} ${bound[3]}` : message;
}

/** The object keys a schema accepts at `path` (an object schema, through optional and nullable wrappers), if it can tell. */
function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let current = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown; def?: { type?: string; innerType?: unknown; options?: unknown[] } } | undefined;
  const unwrap = () => {
    while (current && (current.def?.type === "optional" || current.def?.type === "nullable" || current.def?.type === "default")) current = current.def.innerType as typeof current;
  };
  unwrap();
  for (const key of path) {
    if (!current?.shape || typeof key !== "string" || !(key in current.shape)) return undefined;
    current = current.shape[key] as typeof current;
    unwrap();
  }
  return current?.shape ? Object.keys(current.shape) : undefined;
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
  let option = issue.path.map(String).join(".");
  let problem: string;
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys;
    option = [option, keys[0]].filter(Boolean).join(".");
    const known = keysAt(schema, issue.path);
    problem = `unknown option${known ? `; the options are ${known.join(", ")}` : ""}`;
  } else {
    const got = "input" in issue ? `; got ${describeValue(issue.input)}` : "";
    problem = `${takes(issue)}${got}`;
  }
  throw new InvalidOptionError(component, option || "(options)", problem);
}
