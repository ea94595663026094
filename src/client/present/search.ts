// Search hits and timelines as people read them: one block per hit (its number, time, topic
// and section; its gist; the piece that matched, the matching words in bold on a terminal),
// one line per timeline entry. Piped output has no escape codes: `--json` names the words.
import { wordSpans } from '../../events/searchText.js';
import type { IndexLine, SearchHit } from '../../protocol/answers.js';
import type { ResponseOf } from '../../protocol/protocol.js';
import { localTime } from '../time.js';

const write = (line: string) => process.stdout.write(`${line}\n`);
const BOLD = '\x1b[1m';
const PLAIN = '\x1b[22m';

/** Whether matches are shown in bold: on a terminal, unless NO_COLOR is set. */
export function boldMatches(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '';
}

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

/** How a line names its entry: its number, time, topic, and its job when it is not the one asked about. */
function head(line: IndexLine, job: string | undefined): string {
  const topic = line.topic !== undefined ? `  [${line.topic}]` : '';
  const other = job === undefined ? `  job ${line.job}` : '';
  return `#${line.seq}  ${localTime(line.time)}${topic}${other}`;
}

export function printHits(result: ResponseOf<'search'>, query: string, job: string | undefined, bold = boldMatches()): void {
  if (result.hits.length === 0) {
    write(`no summary matches ${JSON.stringify(query)}`);
    return;
  }
  result.hits.forEach((hit: SearchHit, i) => {
    if (i > 0) write('');
    write(`${head(hit, job)}  ${hit.section}`);
    write(`  ${hit.gist}`);
    if (hit.section !== 'Gist') write(`  ${highlighted(hit.snippet, hit.terms, bold)}`);
    write(`  recap show ${hit.seq}${job === undefined ? ` --job ${hit.job}` : ''}`);
  });
}

export function printTimeline(result: ResponseOf<'timeline'>): void {
  if (result.entries.length === 0) {
    write('no summaries yet');
    return;
  }
  for (const e of result.entries) write(`${head(e, e.job)}  level ${e.level}  ${e.tokens} tokens  ${e.gist}`);
}
