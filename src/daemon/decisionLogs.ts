// Each job's decision log, kept in memory: built on the first `decisions` of a job from the
// texts of its summaries and their amendments in the log, then brought up to date at each read
// from those appended since (only their texts are read), each numbered on from the last. It
// holds the entries only (a decision and its reason are bounded: under a kilobyte each), never
// a summary's text; a redacted summary's entries leave it, their numbers stay taken (a redacted
// copy in the log says how many it had, `decisions`). Were a text it took taken back (a failed
// write), the job's log is built again. Other machines' summaries give entries too, from
// their imports (decisionLog.ts logKey): `chain` is every entry of the job (allEntries).
import { carriedDecisions, decisionKey, decisionSources, decisionsInForce, logKey, newDecisions, type LoggedDecision } from '../events/decisionLog.js';
import { importedInForce } from '../events/entryText.js';
import { hasText } from '../events/entryText.js';
import type { ChainEntry } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';

/** How many texts are read from the log at once. */
const BATCH = 200;

/** A text the log is to take: the event `seq` holds it, for the chain's `entry`. */
type Source = { seq: number; entry: ChainEntry };

/** Every text of the chain that gives the log decisions, in log order. */
const sourcesOf = (chain: readonly ChainEntry[]): Source[] => chain.flatMap((entry) => decisionSources(entry).map((seq) => ({ seq, entry }))).sort((a, b) => a.seq - b.seq);

class JobLog {
  /** By the summary they are in. */
  readonly entries = new Map<number, LoggedDecision[]>();
  readonly seen = new Set<string>();
  /** Numbers given so far, a redacted text's included. */
  numbered = 0;
  /** The texts taken, by their events' numbers. */
  readonly taken = new Set<number>();
  last = 0;

  /** The texts of `sources` it has not taken yet; undefined when it took one `sources` no longer has, or would take one out of order. */
  pending(sources: readonly Source[]): Source[] | undefined {
    const fresh = sources.filter((s) => !this.taken.has(s.seq));
    if (sources.length - fresh.length !== this.taken.size || fresh.some((s) => s.seq < this.last)) return undefined;
    return fresh;
  }

  /** Takes a text: its decisions not logged before, or as many numbers as a redacted copy says its text had. */
  add({ seq, entry }: Source, text: { text: string; decisions?: number } | undefined): void {
    if (text?.decisions !== undefined) this.numbered += text.decisions;
    else if (text !== undefined) {
      const key = logKey(entry);
      const earlier = this.entries.get(key) ?? [];
      // An amendment's decisions that its summary logged already keep their numbers (and a later import's).
      const carried = seq === key ? [] : carriedDecisions(earlier, text.text, seq);
      const added = newDecisions(this.numbered, this.seen, entry, text.text, seq);
      for (const decision of added) this.seen.add(decisionKey(decision.decision));
      this.numbered += added.length;
      this.entries.set(key, [...earlier, ...carried, ...added]);
    }
    this.taken.add(seq);
    this.last = seq;
  }

  /** The entries shown, in number order: each summary's text in force's (decisionLog.ts). A redacted summary's are forgotten. */
  shown(chain: readonly ChainEntry[]): LoggedDecision[] {
    const shown: LoggedDecision[] = [];
    for (const entry of chain) {
      const key = logKey(entry);
      const logged = this.entries.get(key);
      if (logged === undefined) continue;
      if (!hasText(entry)) this.entries.delete(key);
      // Another machine's entry is shown by its number now (its newest import's).
      else shown.push(...decisionsInForce(entry, logged).map((d) => (d.seq === entry.seq ? d : { ...d, seq: entry.seq })));
    }
    return shown.sort((a, b) => a.n - b.n);
  }
}

export class DecisionLogs {
  private readonly jobs = new Map<string, JobLog>();
  /** Each job's update in progress: one at a time, so two reads never take a text twice. */
  private readonly updating = new Map<string, Promise<unknown>>();

  constructor(private readonly store: Pick<EventStore, 'get'>) {}

  /** The job's log, up to date with `chain()` (read once the job's turn comes). Every text it needs must be in the log. */
  async of(job: string, chain: () => readonly ChainEntry[]): Promise<readonly LoggedDecision[]> {
    const turn = (this.updating.get(job) ?? Promise.resolve()).then(() => this.update(job, chain()));
    const settled = turn.catch(() => undefined);
    this.updating.set(job, settled);
    void settled.then(() => {
      if (this.updating.get(job) === settled) this.updating.delete(job);
    });
    return turn;
  }

  /**
   * How many entries of the job's log each of `seqs` (a summary and its amendments) gave: what
   * their redacted copies keep, so the log's numbers stay when it is built again.
   */
  async counts(job: string, chain: () => readonly ChainEntry[], seqs: readonly number[]): Promise<Map<number, number>> {
    await this.of(job, chain);
    const log = this.jobs.get(job);
    const counts = new Map(seqs.map((seq) => [seq, 0]));
    for (const logged of log?.entries.values() ?? []) for (const d of logged) if (counts.has(d.source) && !d.carried) counts.set(d.source, counts.get(d.source)! + 1);
    return counts;
  }

  private async update(job: string, chain: readonly ChainEntry[]): Promise<readonly LoggedDecision[]> {
    const sources = sourcesOf(chain);
    let log = this.jobs.get(job);
    let pending = log?.pending(sources);
    if (log === undefined || pending === undefined) {
      this.jobs.set(job, (log = new JobLog()));
      pending = sources;
    }
    const fresh = log;
    try {
      for (let from = 0; from < pending.length; from += BATCH) {
        const batch = pending.slice(from, from + BATCH);
        const texts = await this.texts(batch.map((s) => s.seq));
        for (const source of batch) fresh.add(source, texts.get(source.seq));
      }
    } catch (error) {
      // Half taken: the next read starts again.
      this.jobs.delete(job);
      throw error;
    }
    return fresh.shown(chain);
  }

  private async texts(seqs: number[]): Promise<Map<number, { text: string; decisions?: number }>> {
    const texts = new Map<number, { text: string; decisions?: number }>();
    if (seqs.length === 0) return texts;
    for (const event of await this.store.get(seqs)) {
      if (event.type === 'SummaryImported') texts.set(event.seq, { text: importedInForce(event.data).text });
      if (event.type !== 'SummaryAccepted' && event.type !== 'SummaryAmended') continue;
      const { text, redacted, decisions } = event.data;
      texts.set(event.seq, redacted ? { text: '', decisions: decisions ?? 0 } : { text });
    }
    return texts;
  }
}
