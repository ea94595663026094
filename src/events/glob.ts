// Glob matching for one path segment (*, ?, [...], {a,b}) without regular expressions: a
// pattern such as `****...x` against a long name made the old regex backtrack for minutes
// and froze the daemon. This matcher walks the name once per pattern token, keeping the set
// of positions the pattern so far can end at, so its time is at most tokens x name length.

type Token =
  | { kind: 'char'; char: string }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'class'; negated: boolean; ranges: [string, string][] }
  | { kind: 'alternatives'; options: string[] };

/**
 * A segment's tokens. What the shell would read literally stays literal: an unclosed `[`
 * or `{` is the character itself, as bash treats it, so a malformed pattern is still judged.
 */
function tokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === '*') {
      // Consecutive stars match what one star matches.
      if (out.at(-1)?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'any' });
    else if (c === '[') {
      const parsed = bracket(glob, i);
      if (parsed === undefined) out.push({ kind: 'char', char: c });
      else {
        out.push(parsed.token);
        i = parsed.end;
      }
    } else if (c === '{') {
      const end = glob.indexOf('}', i + 1);
      if (end === -1) out.push({ kind: 'char', char: c });
      else {
        out.push({ kind: 'alternatives', options: glob.slice(i + 1, end).split(',') });
        i = end;
      }
    } else out.push({ kind: 'char', char: c });
  }
  return out;
}

/** A bracket expression starting at `start`, or undefined when it is not closed. */
function bracket(glob: string, start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  const negated = glob[i] === '!' || glob[i] === '^';
  if (negated) i += 1;
  const ranges: [string, string][] = [];
  // A `]` right after the opening (or the negation) is a member, as in the shell.
  for (let first = true; i < glob.length; first = false) {
    let c = glob[i]!;
    if (c === ']' && !first) return { token: { kind: 'class', negated, ranges }, end: i };
    if (c === '\\' && i + 1 < glob.length) c = glob[++i]!;
    if (glob[i + 1] === '-' && i + 2 < glob.length && glob[i + 2] !== ']') {
      ranges.push([c, glob[i + 2]!]);
      i += 3;
    } else {
      ranges.push([c, c]);
      i += 1;
    }
  }
  return undefined;
}

function inClass(token: Extract<Token, { kind: 'class' }>, c: string): boolean {
  const member = token.ranges.some(([from, to]) => c >= from && c <= to);
  return member !== token.negated;
}

/** Whether one path segment (no `/` in it) matches one glob segment. */
export function segmentMatches(glob: string, segment: string): boolean {
  const n = segment.length;
  // reachable[i]: the tokens so far can match exactly segment[0, i).
  let reachable = new Uint8Array(n + 1);
  reachable[0] = 1;
  for (const token of tokens(glob)) {
    const next = new Uint8Array(n + 1);
    let any = false;
    if (token.kind === 'star') {
      // A star extends every reachable position to every later one.
      for (let i = 0, on = 0; i <= n; i += 1) {
        on |= reachable[i]!;
        next[i] = on;
        any ||= on === 1;
      }
    } else if (token.kind === 'alternatives') {
      for (let i = 0; i <= n; i += 1) {
        if (!reachable[i]) continue;
        for (const option of token.options) {
          if (segment.startsWith(option, i)) {
            next[i + option.length] = 1;
            any = true;
          }
        }
      }
    } else {
      for (let i = 0; i < n; i += 1) {
        if (!reachable[i]) continue;
        const c = segment[i]!;
        const ok = token.kind === 'any' || (token.kind === 'char' ? c === token.char : inClass(token, c));
        if (ok) {
          next[i + 1] = 1;
          any = true;
        }
      }
    }
    if (!any) return false;
    reachable = next;
  }
  return reachable[n] === 1;
}

/**
 * Whether a glob names the protected path or something inside it, segment by segment.
 * A `**` before the protected path is reached is a broad search of a parent folder, which
 * stays allowed (a project's own search would otherwise always hit its .recap folder).
 */
export function globReaches(pattern: string, protectedPath: string): boolean {
  const globs = pattern.split('/').filter(Boolean);
  const segments = protectedPath.split('/').filter(Boolean);
  return segments.every((segment, i) => {
    const glob = globs[i];
    return glob !== undefined && glob !== '**' && segmentMatches(glob, segment);
  });
}
