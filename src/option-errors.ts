// How option errors show the value they got: short, safe, and with its kind.
import { InvalidOptionError } from "./errors.js";

const MAX_TEXT = 40;
const MAX_KEYS = 5;

/** `text` cut to `MAX_TEXT` characters (never in the middle of a surrogate pair), with "..." when cut. */
function cut(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  let end = MAX_TEXT - 3;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}...`;
}

const quote = (text: string) => JSON.stringify(cut(text));

const article = (name: string) => (/^[aeiou]/i.test(name) ? `an ${name}` : `a ${name}`);

const keyName = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? cut(key) : quote(key));

/** A primitive as it would be written in code, or undefined for anything else. */
function primitive(value: unknown): string | undefined {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return quote(value);
  if (typeof value === "number" || typeof value === "boolean") return Object.is(value, -0) ? "0" : String(value);
  if (typeof value === "bigint") return `${value}n`;
  return undefined;
}

function describeObject(value: object): string {
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== null && prototype !== Object.prototype) {
    const name: unknown = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" && name !== "Object" ? article(cut(name)) : "an object";
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return "an empty object";
  // A small object of plain values is shown whole, e.g. { messages: 5 }; anything else by its keys.
  if (keys.length <= 4) {
    const entries = keys.map((key) => {
      const shown = primitive((value as Record<string, unknown>)[key]);
      return shown === undefined ? undefined : `${keyName(key)}: ${shown}`;
    });
    const text = `{ ${entries.join(", ")} }`;
    if (entries.every((entry) => entry !== undefined) && text.length <= 2 * MAX_TEXT) return text;
  }
  const shown = keys.slice(0, MAX_KEYS).map(keyName).join(", ");
  const more = keys.length > MAX_KEYS ? `, ... (${keys.length} keys)` : "";
  return `an object with ${keys.length === 1 ? "key" : "keys"} ${shown}${more}`;
}

/**
 * A value as an option error shows it: a number or a boolean as written, a string quoted and cut
 * to 40 characters, an array by its length, a small plain object whole (`{ tokens: -5 }`), any
 * other object by its first keys or its class; a function is "a function", never its body. Safe
 * on circular and huge values, and on objects whose getters or proxies throw.
 * @internal
 */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === "string") return `the string ${quote(value)}`;
    if (typeof value === "function") return "a function";
    if (typeof value === "symbol") return "a symbol";
    if (typeof value === "object" && value !== null) return describeObject(value);
    return primitive(value) ?? typeof value;
  } catch {
    return "a value that cannot be read";
  }
}

/**
 * The error for an option `option` of `component` that got `value` where it takes `expected`
 * (a phrase such as "a positive integer"); `reason` adds why, when `expected` alone does not say it.
 * @internal
 */
export function invalidOption(component: string, option: string, value: unknown, expected: string, reason?: string): InvalidOptionError {
  return new InvalidOptionError(component, option, { got: describeValue(value), expected, ...(reason === undefined ? {} : { reason }) });
}
