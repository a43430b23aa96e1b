import type { MatchCondition } from "@langchain/langgraph";

// What SqliteStore matches in JavaScript: namespace conditions (with `*` wildcards, whole labels
// only) and value filters (with the $eq/$ne/$gt/$gte/$lt/$lte/$in/$nin operators), as InMemoryStore
// and PostgresStore read them.

/** The labels of a namespace, joined with `:` (a character no valid label contains). @internal */
export function joinNamespace(namespace: readonly string[]): string {
  return namespace.join(":");
}

/** Whether `namespace` meets `condition`: its first (prefix) or last (suffix) labels match, `*` matching any one label. @internal */
export function matchesCondition(namespace: readonly string[], condition: MatchCondition): boolean {
  const { path, matchType } = condition;
  if (path.length > namespace.length) return false;
  const offset = matchType === "suffix" ? namespace.length - path.length : 0;
  return path.every((label, index) => label === "*" || namespace[offset + index] === label);
}

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => OPERATORS.has(key));
}

/** Structural equality of JSON values. */
function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
}

function matchesOperator(actual: unknown, operator: string, expected: unknown): boolean {
  switch (operator) {
    case "$eq":
      return jsonEqual(actual, expected);
    case "$ne":
      return !jsonEqual(actual, expected);
    case "$gt":
      return Number(actual) > Number(expected);
    case "$gte":
      return Number(actual) >= Number(expected);
    case "$lt":
      return Number(actual) < Number(expected);
    case "$lte":
      return Number(actual) <= Number(expected);
    case "$in":
      return Array.isArray(expected) && expected.some((each) => jsonEqual(actual, each));
    default: // $nin
      return !Array.isArray(expected) || !expected.some((each) => jsonEqual(actual, each));
  }
}

/**
 * Whether an item's value meets a search filter: every key's value equals the filter's (JSON
 * equality), or meets each operator of an operator object (`{ $gte: 3, $lt: 5 }`). @internal
 */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, expected]) => {
    const actual = value[key];
    if (isOperatorObject(expected)) return Object.entries(expected).every(([operator, operand]) => matchesOperator(actual, operator, operand));
    return jsonEqual(actual, expected);
  });
}
