// Token counting. Exact counts are byte-pair encoding's (bytePairs.ts, with the vocabulary
// common/tokenCounter.ts loads); `words` reproduces the shell prototype's estimate
// (whitespace-separated words times a ratio, truncated as awk's %d does).

export type TokenCounter = (text: string) => number;

export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}

export function wordsCounter(ratio: number): TokenCounter {
  return (text) => Math.floor(wordCount(text) * ratio);
}

/** Runs of this many non-space characters are counted piece by piece (see withLongRuns). */
const LONG_RUN = 256;
const isSpace = (code: number) =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/**
 * Whether `text` has a run of LONG_RUN non-space characters. A plain scan, with printable
 * ASCII first: the regex \S{256} is tried at every character and took as long as counting
 * the text itself; anchored at the runs' starts it still cost a fifth of counting prose.
 */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if ((code > 0x20 && code < 0x7f) || !isSpace(code)) {
      run += 1;
      if (run >= LONG_RUN) return true;
    } else run = 0;
  }
  return false;
}

/**
 * Byte-pair encoding is quadratic in the length of one unbroken word: a 300 KB run of
 * letters would hold the daemon for seconds. Such runs are counted in pieces, which can
 * differ from the exact count by a token at each cut; ordinary text is counted exactly.
 * The runs are found by a plain scan: a regex over a run of megabytes overflows its stack.
 */
export function withLongRuns(count: TokenCounter): TokenCounter {
  return (text) => {
    if (!hasLongRun(text)) return count(text);
    let total = 0;
    let last = 0;
    for (let i = 0; i < text.length;) {
      if (isSpace(text.charCodeAt(i))) {
        i += 1;
        continue;
      }
      let end = i;
      while (end < text.length && !isSpace(text.charCodeAt(end))) end += 1;
      if (end - i >= LONG_RUN) {
        total += count(text.slice(last, i));
        for (let at = i; at < end; at += LONG_RUN) total += count(text.slice(at, Math.min(at + LONG_RUN, end)));
        last = end;
      }
      i = end;
    }
    return total + count(text.slice(last));
  };
}
