// The job's summaries found by their words (`search`, through the search index) and shown
// around a moment or an entry (`timeline`, from the projection alone). Both append nothing;
// a job named that has no events is answered empty, with a notice, as `status` is.
import { indexedSeq, indexedSource, matchedPart, searchParts, type SearchSource } from '../../events/searchText.js';
import { snippetOf } from '../../events/searchSnippet.js';
import { timelineWindow } from '../../events/timeline.js';
import { allEntries, jobEntry, type ChainEntry } from '../../events/jobState.js';
import { importedInForce } from '../../events/entryText.js';
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
  const found = index.search(r.query, filter).slice(0, r.limit);
  // Each hit's text in force, read from the event that holds it now (none for a redacted entry: it is never read).
  const matches = found.flatMap((match) => {
    const entry = jobEntry(s.state(match.job), match.seq);
    const from = entry && indexedSeq(entry);
    return entry === undefined || from === undefined ? [] : [{ match, entry, from }];
  });
  const events = new Map((await s.deps.store.get(matches.map((m) => m.from))).map((e) => [e.seq, e]));
  return {
    hits: matches.flatMap(({ match, entry, from }) => {
      const event = events.get(from);
      const data = event?.type === 'SummaryImported' ? importedInForce(event.data) : event?.type === 'SummaryAccepted' || event?.type === 'SummaryAmended' ? event.data : undefined;
      const source = data === undefined ? undefined : indexedSource(data);
      return source === undefined ? [] : [hit(match, entry, source)];
    }),
  };
}

/** A match as the answer shows it: the entry's index line, the section that matched best, and the piece of it that matched. */
function hit(match: EntryMatch, entry: ChainEntry, source: SearchSource): SearchHit {
  const matched = new Set(match.terms);
  const part = matchedPart(searchParts(source), matched);
  const { snippet, terms } = snippetOf(part.text, matched);
  return { ...indexLine(match.job, entry), score: Math.round(match.score * 1000) / 1000, section: part.section, snippet, terms };
}

async function timeline(s: CommandService, r: RequestOf<'timeline'>): Promise<ResponseOf<'timeline'>> {
  const where = s.where(r);
  await s.read(where);
  // Every machine's entries, by time.
  const chain = allEntries(s.state(where.job));
  const window = timelineWindow(chain, r);
  if (window === undefined)
    throw new ProtocolError(
      'not_summary',
      notSummary(
        where.job,
        r.seq!,
        chain.map((e) => e.seq).sort((a, b) => a - b),
      ),
    );
  return { entries: window.map((e) => indexLine(where.job, e)) };
}
