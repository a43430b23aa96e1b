/** Nesting deeper than this is left to the JSON round trip (which also rejects cycles). */
const DIRECT_COPY_DEPTH = 64;
/** Thrown inside {@link copyDirect} when a value needs the round trip. */
const NEEDS_ROUND_TRIP = Symbol("needs the JSON round trip");

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** A value in an array: what `JSON.stringify` writes as `null` becomes `null`. */
function copyItem(value: unknown, depth: number): unknown {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return null;
  return copyDirect(value, depth);
}

function copyDirect(value: unknown, depth: number): unknown {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return value;
  if (typeof value === "number") return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
  if (typeof value !== "object" || depth > DIRECT_COPY_DEPTH) throw NEEDS_ROUND_TRIP;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NEEDS_ROUND_TRIP;
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyItem(value[index], depth + 1);
    return copy;
  }
  if (!isPlainObject(value)) throw NEEDS_ROUND_TRIP;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (field === undefined || typeof field === "function" || typeof field === "symbol") continue;
    const copied = copyDirect(field, depth + 1);
    // An own "__proto__" key stays a key, as JSON.parse makes it.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else copy[key] = copied;
  }
  return copy;
}

/**
 * What `JSON.parse(JSON.stringify(value))` gives, without writing and parsing the text: plain data
 * (strings, finite numbers, booleans, null, arrays, objects whose prototype is `Object.prototype` or
 * null) is copied directly, dropping `undefined`, functions and symbols from objects and turning them
 * into `null` in arrays, non-finite numbers into `null` and -0 into 0; anything else (a `Date`, an
 * object with `toJSON`, a class instance, a cycle, very deep nesting) goes through the JSON round
 * trip, and throws where it throws. Strings are shared, not copied: they are immutable. For a whole
 * message history several times cheaper than the round trip.
 * @internal
 */
export function jsonCopy<T>(value: T): T {
  try {
    return copyDirect(value, 0) as T;
  } catch (error) {
    if (error !== NEEDS_ROUND_TRIP) throw error;
  }
  return JSON.parse(JSON.stringify(value)) as T;
}
