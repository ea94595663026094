// Which way each configuration key makes the gate stricter: the one place that says so.
// A project's config file can be written by the agent, so its changes apply at once only
// where they make the gate stricter; the rest waits for the user's `recap config allow`.

/** How a key's values are ordered, from the gate's point of view. */
type Order =
  /** A smaller number is stricter (a lower threshold trips sooner). */
  | 'lower'
  /** A larger number is stricter (a higher floor asks for more). */
  | 'higher'
  /** A smaller number is stricter, and 0 (off) is the weakest of all. */
  | 'lowerNotOff'
  /** A list that keeps every old item and adds more is stricter. */
  | 'more'
  /** A list with no item the old one did not have is stricter. */
  | 'fewer'
  /** One value is stricter than every other. */
  | { strictest: unknown }
  /** A smaller number is stricter; 0 stands for a value known only at run time, at most `zeroAtMost`. */
  | { lowerZeroAtMost: number };

/**
 * Every key recap knows how to order. A key not here (including one added later) has no
 * safe direction: any change to it waits for approval.
 */
const ORDERS: Record<string, Order> = {
  TOKEN_THRESHOLD: 'lower',
  SUMMARY_MIN_TOKENS: 'higher',
  SUMMARY_MAX_TOKENS: 'lower',
  MIN_TOKENS_PER_SECTION: 'higher',
  SECTION_MAX_TOKENS: 'lowerNotOff',
  REQUIRED_SECTIONS: 'more',
  BYPASS_PREFIXES: 'fewer',
  COUNT_KINDS: 'more',
  ON_DAEMON_DOWN: { strictest: 'closed' },
  ROLLUP_EVERY: 'lowerNotOff',
  ROLLUP_MIN_TOKENS: 'higher',
  ROLLUP_MAX_TOKENS: 'lower',
  TRIGGER_MAX_INTERACTIONS: 'lowerNotOff',
  TRIGGER_CONTEXT_PERCENT: 'lowerNotOff',
  // A smaller window makes the same context use a larger share of it. 0 takes the window of
  // the model in use, which may be as small as 200,000: only a window no larger is stricter.
  CONTEXT_WINDOW: { lowerZeroAtMost: 200_000 },
  // A gist the agent must write asks more of it than one recap derives.
  GIST: { strictest: 'agent' },
  // Acting everywhere is stricter than acting only in marked projects.
  SCOPE: { strictest: 'all' },
  // Not the gate's, but what leaves the machine: sharing nothing is the safe side.
  SYNC: { strictest: 'off' },
  // PROFILE, TOKEN_ENCODING, TOKEN_WORD_RATIO, JOB_SCOPE, CONTEXT_BUDGET, INDEX_BUDGET, REF_READ_BUDGET, SYNC_REMOTE, SYNC_START_WAIT, SYNC_PUSH: no safe direction
  // (a profile changes the sections; an encoding or ratio counts summaries differently too;
  // a session scope starts every session's count at zero).
};

export type Direction = 'same' | 'stricter' | 'weaker';

/** Whether `to` makes the gate stricter than `from` for this key, or leaves it as it was. */
export function direction(key: string, from: unknown, to: unknown): Direction {
  if (sameValue(from, to)) return 'same';
  const order = ORDERS[key];
  if (order === undefined || from === undefined || to === undefined) return 'weaker';
  return stricter(order, from, to) ? 'stricter' : 'weaker';
}

function stricter(order: Order, from: unknown, to: unknown): boolean {
  if (typeof order === 'object' && 'strictest' in order) return sameValue(to, order.strictest);
  if (typeof order === 'object') {
    if (typeof from !== 'number' || typeof to !== 'number') return false;
    // 0 may be as large as any window: going to it is weaker; coming from it, only a window no larger than its least is stricter.
    return to !== 0 && to <= (from === 0 ? order.lowerZeroAtMost : from);
  }
  if (order === 'more' || order === 'fewer') {
    if (!Array.isArray(from) || !Array.isArray(to)) return false;
    const [small, large] = order === 'more' ? [from, to] : [to, from];
    return small.every((item) => large.includes(item));
  }
  if (typeof from !== 'number' || typeof to !== 'number') return false;
  if (order === 'higher') return to > from;
  if (order === 'lower') return to < from;
  return to !== 0 && (from === 0 || to < from);
}

export type KeyChange = { key: string; from: unknown; to: unknown; direction: Exclude<Direction, 'same'> };

/** Every key whose value differs between two configurations, with which way it goes. */
export function configChanges(from: Record<string, unknown>, to: Record<string, unknown>): KeyChange[] {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])];
  return keys.flatMap((key) => {
    const d = direction(key, from[key], to[key]);
    return d === 'same' ? [] : [{ key, from: from[key], to: to[key], direction: d }];
  });
}

/**
 * What applies while a change waits for approval: per key, the wanted value where it is
 * stricter than (or equal to) the approved one, else the approved one. `held` lists the
 * keys kept back.
 */
export function guardedValues(approved: Record<string, unknown>, wanted: Record<string, unknown>): { values: Record<string, unknown>; held: KeyChange[] } {
  const values = { ...approved };
  const held: KeyChange[] = [];
  for (const change of configChanges(approved, wanted)) {
    if (change.direction === 'stricter') values[change.key] = change.to;
    else held.push(change);
  }
  return { values, held };
}

/** Whether two values of one key are the same (a list compares item by item). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}
