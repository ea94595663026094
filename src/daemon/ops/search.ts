// The job's summaries found by their words (`search`, through the search index) and shown
// around a moment or an entry (`timeline`, from the projection alone). Both append nothing;
// a job named that has no events is answered empty, with a notice, as `status` is.
import { indexedSource, searchParts } from '../../events/searchText.js';
import { snippetOf } from '../../events/searchSnippet.js';
import { timelineWindow } from '../../events/timeline.js';
import type { ChainEntry } from '../../events/jobState.js';
import type { SearchHit } from '../../protocol/answers.js';
import { indexLine } from '../../protocol/indexLine.js';
import { ProtocolError, type RequestOf, type ResponseOf } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import type { EntryMatch, SearchIndex } from '../searchIndex.js';
import { noted, notSummary } from './job.js';
import type { OpsOf } from './table.js';

export function searchOps(s: CommandService, index: SearchIndex): OpsOf<'search' | 'timeline'> {
  return {
    search: (r) => noted(s, r.allJobs ? undefined : r.job, () => search(s, index, r)),
    timeline: (r) => noted(s, r.job, () => timeline(s, r)),
  };
}

async function search(s: CommandService, index: SearchIndex, r: RequestOf<'search'>): Promise<ResponseOf<'search'>> {
  const where = r.allJobs ? undefined : s.where(r);
  await (where === undefined ? s.deps.store.flushed() : s.read(where));
  await index.ready();
  const job = where?.job;
  const filter = { ...(job !== undefined ? { job } : {}), ...(r.topic !== undefined ? { topic: r.topic } : {}), ...(r.since !== undefined ? { since: r.since } : {}) };
  const matches = index.search(r.query, filter).slice(0, r.limit);
  const events = await s.deps.store.get(matches.map((m) => m.seq));
  const texts = new Map(events.flatMap((e) => (e.type === 'SummaryAccepted' ? [[e.seq, e.data.text] as const] : [])));
  return {
    hits: matches.flatMap((match) => {
      const entry = chainEntry(s.state(match.job).chain, match.seq);
      const text = texts.get(match.seq);
      return entry === undefined || text === undefined ? [] : [hit(match, entry, text)];
    }),
  };
}

/** A match as the answer shows it: the entry's index line, and the piece of its section that matched. */
function hit(match: EntryMatch, entry: ChainEntry, text: string): SearchHit {
  const source = indexedSource({ text, gist: entry.gist, ...(entry.refs ? { refs: entry.refs } : {}) });
  const part = source === undefined ? undefined : searchParts(source).find((p) => p.section === match.section);
  const { snippet, terms } = snippetOf(part?.text ?? '', new Set(match.terms));
  return { ...indexLine(match.job, entry), score: Math.round(match.score * 1000) / 1000, section: match.section, snippet, terms };
}

/** The chain's entry numbered `seq` (the chain is in sequence order). */
function chainEntry(chain: readonly ChainEntry[], seq: number): ChainEntry | undefined {
  let lo = 0;
  let hi = chain.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (chain[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return chain[lo]?.seq === seq ? chain[lo] : undefined;
}

async function timeline(s: CommandService, r: RequestOf<'timeline'>): Promise<ResponseOf<'timeline'>> {
  const where = s.where(r);
  await s.read(where);
  const chain = s.state(where.job).chain;
  const window = timelineWindow(chain, r);
  if (window === undefined)
    throw new ProtocolError(
      'not_summary',
      notSummary(
        where.job,
        r.seq!,
        chain.map((e) => e.seq),
      ),
    );
  return { entries: window.map((e) => indexLine(where.job, e)) };
}
