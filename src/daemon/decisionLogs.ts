// Each job's decision log, kept in memory: built on the first `decisions` of a job from the
// texts of its summaries in the log, then brought up to date at each read from the summaries
// accepted since (only their texts are read). It holds the entries only (a decision and its
// reason are bounded: under a kilobyte each), never a summary's text. Were a summary it
// holds taken back (a failed write), the job's log is built again.
import { decisionSource, newDecisions, decisionKey, type LoggedDecision } from '../events/decisionLog.js';
import type { ChainEntry } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';

/** How many summaries' texts are read from the log at once. */
const BATCH = 200;

class JobLog {
  readonly entries: LoggedDecision[] = [];
  readonly seen = new Set<string>();
  /** How many entries of the chain are in, and the last one's number and hash. */
  taken = 0;
  last: { seq: number; hash: string | undefined } | undefined;

  holds(chain: readonly ChainEntry[]): boolean {
    if (this.last === undefined) return this.taken === 0;
    const entry = chain[this.taken - 1];
    return entry !== undefined && entry.seq === this.last.seq && entry.hash === this.last.hash;
  }

  add(entry: ChainEntry, text: string | undefined): void {
    if (text !== undefined) {
      for (const decision of newDecisions(this.entries.length, this.seen, entry, text)) {
        this.entries.push(decision);
        this.seen.add(decisionKey(decision.decision));
      }
    }
    this.taken += 1;
    this.last = { seq: entry.seq, hash: entry.hash };
  }
}

export class DecisionLogs {
  private readonly jobs = new Map<string, JobLog>();
  /** Each job's update in progress: one at a time, so two reads never take a summary twice. */
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

  private async update(job: string, chain: readonly ChainEntry[]): Promise<readonly LoggedDecision[]> {
    let log = this.jobs.get(job);
    if (log === undefined || !log.holds(chain)) this.jobs.set(job, (log = new JobLog()));
    const fresh = log;
    try {
      for (let from = fresh.taken; from < chain.length; from += BATCH) {
        const batch = chain.slice(from, from + BATCH);
        const texts = await this.texts(batch.flatMap((e) => decisionSource(e) ?? []));
        for (const entry of batch) {
          const source = decisionSource(entry);
          fresh.add(entry, source === undefined ? undefined : texts.get(source));
        }
      }
    } catch (error) {
      // Half taken: the next read starts again.
      this.jobs.delete(job);
      throw error;
    }
    return fresh.entries;
  }

  private async texts(seqs: number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>();
    if (seqs.length === 0) return texts;
    for (const event of await this.store.get(seqs)) if (event.type === 'SummaryAccepted') texts.set(event.seq, event.data.text);
    return texts;
  }
}
