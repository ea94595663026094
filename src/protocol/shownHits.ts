// Search hits and timelines as text, for `recap search` and `recap timeline` and for the hook
// that runs them for an agent whose shell cannot: one block per hit (its number, time, topic
// and section; its gist; the piece that matched, the matching words in bold when asked), one
// line per timeline entry.
import { wordSpans } from '../events/searchText.js';
import type { IndexLine } from './answers.js';
import type { ResponseOf } from './protocol.js';

const BOLD = '\x1b[1m';
const PLAIN = '\x1b[22m';

/** The snippet with each matched word in bold, or as it is. */
export function highlighted(snippet: string, terms: readonly string[], bold: boolean): string {
  if (!bold || terms.length === 0) return snippet;
  const wanted = new Set(terms);
  let out = '';
  let at = 0;
  for (const span of wordSpans(snippet)) {
    if (!wanted.has(span.word)) continue;
    out += `${snippet.slice(at, span.start)}${BOLD}${span.word}${PLAIN}`;
    at = span.end;
  }
  return out + snippet.slice(at);
}

/** How a line names its entry: its number, whose (another machine's), time, topic, what became of its text, and its job when the search was over every job. */
function head(line: IndexLine, time: (ms: number) => string, withJob: boolean): string {
  const from = line.from !== undefined ? ` [${line.from}]` : '';
  const topic = line.topic !== undefined ? `  [${line.topic}]` : '';
  const edited = line.supersededBy !== undefined ? `  (amended by #${line.supersededBy})` : line.redacted ? '  (redacted)' : '';
  return `#${line.seq}${from}  ${time(line.time)}${topic}${edited}${withJob ? `  job ${line.job}` : ''}`;
}

/** `recap search`'s output; `allJobs`: each hit names its job, and `recap show` is given it. */
export function shownHits(result: ResponseOf<'search'>, ask: { query: string; allJobs: boolean; recap: string }, time: (ms: number) => string, bold = false): string {
  if (result.hits.length === 0) return `no summary matches ${JSON.stringify(ask.query)}`;
  return result.hits
    .map((hit) =>
      [
        `${head(hit, time, ask.allJobs)}  ${hit.section}`,
        `  ${hit.gist}`,
        ...(hit.section !== 'Gist' ? [`  ${highlighted(hit.snippet, hit.terms, bold)}`] : []),
        `  ${ask.recap} show ${hit.seq}${ask.allJobs ? ` --job ${hit.job}` : ''}`,
      ].join('\n'),
    )
    .join('\n\n');
}

/** `recap timeline`'s output: one line per entry, oldest first. */
export function shownTimeline(result: ResponseOf<'timeline'>, time: (ms: number) => string): string {
  if (result.entries.length === 0) return 'no summaries yet';
  return result.entries.map((e) => `${head(e, time, false)}  level ${e.level}  ${e.tokens} tokens  ${e.gist}`).join('\n');
}
