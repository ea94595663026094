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
  for (const key of Object.keys(value).sort()) {
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
