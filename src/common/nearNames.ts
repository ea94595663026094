// "Did you mean": the known names closest to a mistyped one, for a --job that has no events.

/** Edits (insert, delete, replace a character) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Up to `max` of `names` near `name`, closest first: a few typos away (a third of its
 * length, at least 2), or sharing its start or holding it whole (`myrepo` for `myrepo-3f2a9c1b`).
 */
export function nearNames(name: string, names: Iterable<string>, max = 5): string[] {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  const scored: [string, number][] = [];
  for (const candidate of names) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(wanted, lower);
    if (distance <= limit || lower.includes(wanted) || (lower.length >= 3 && wanted.includes(lower))) scored.push([candidate, distance]);
  }
  return scored
    .sort(([a, x], [b, y]) => x - y || a.localeCompare(b))
    .slice(0, max)
    .map(([candidate]) => candidate);
}
