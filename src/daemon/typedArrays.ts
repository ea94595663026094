// The one way recap's compact indexes (the audit page's tracks, search's postings and words)
// move their typed arrays into larger ones as they grow.

type Numeric = Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** `to`, holding the first `n` numbers of `from` (all of them unless told). */
export function copied<T extends Numeric>(from: Numeric, to: T, n: number = from.length): T {
  to.set(from.subarray(0, Math.min(n, from.length, to.length)));
  return to;
}
