// Canonical JSON: object keys sorted at every depth, so equal content always hashes equally.
// `recap verify` makes it for every accepted summary: the usual content is copied with its
// keys in order and written by JSON.stringify in one pass, which gives the same text.

/** A value JSON.stringify would not write as the canonical form does. */
const UNSORTABLE = Symbol('unsortable');

export function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value);
  return sorted === UNSORTABLE ? canonicalText(value) : JSON.stringify(sorted);
}

/** The canonical form written piece by piece: the definition, for what sortedCopy leaves. */
function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `value` with every plain object's keys in sorted order (the order JSON.stringify keeps),
 * undefined members left out; UNSORTABLE where JSON.stringify would write it otherwise: a
 * key of digits (an object lists those first), "__proto__", an object with a prototype of
 * its own (toJSON, a Date), and undefined, a function, a symbol or a bigint anywhere else.
 */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object') return value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? UNSORTABLE : value;
  if (value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item = sortedCopy(value[i]);
      if (item === UNSORTABLE) return UNSORTABLE;
      out[i] = item;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return UNSORTABLE;
  const out: Record<string, unknown> = {};
  for (const key of inOrder(Object.keys(value))) {
    const first = key.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || key === '__proto__') return UNSORTABLE;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    const copy = sortedCopy(member);
    if (copy === UNSORTABLE) return UNSORTABLE;
    out[key] = copy;
  }
  return out;
}

/** Keys sorted: most objects' (a section's, a chain entry's nested ones) already are, and a check costs less than a sort. */
function inOrder(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i += 1) if (keys[i - 1]! > keys[i]!) return keys.sort();
  return keys;
}

/**
 * Whether two values have the same canonical JSON, as comparing `canonicalJson` of each says:
 * values made of plain objects, arrays and primitives are compared as they are, without
 * writing them (`recap verify` compares a million events' projections this way); anything
 * else, or a difference, is decided by the texts.
 */
export function canonicallyEqual(a: unknown, b: unknown): boolean {
  return plainlyEqual(a, b) || canonicalJson(a) === canonicalJson(b);
}

/**
 * True only where the canonical texts are surely the same: equal primitives (0 and -0 are
 * both written 0), arrays of such items, plain objects with the same members. False says
 * nothing: a NaN, a bigint, a Date, a class's instance, members in another order.
 */
function plainlyEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null) return a === b && typeof a !== 'bigint';
  if (typeof b !== 'object' || b === null) return false;
  const proto: unknown = Object.getPrototypeOf(a);
  if (Object.getPrototypeOf(b) !== proto) return false;
  if (Array.isArray(a)) {
    if (proto !== Array.prototype || !Array.isArray(b)) return false;
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i += 1) if (!plainlyEqual(x[i], y[i])) return false;
    return true;
  }
  if (proto !== Object.prototype && proto !== null) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // The same members in the same order, as two folds of the same events make them; any other order is left to the texts.
  const keys = Object.keys(x);
  const others = Object.keys(y);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (key !== others[i] || !plainlyEqual(x[key], y[key])) return false;
  }
  return true;
}
