// What `recap verify` checks of the user's edits of memory, event by event: an amendment's
// hash and its link to the entry it amends; a redaction's record against the entry it names
// (the chain hash it kept, its text really gone from the log); no event without its text that
// no redaction explains. And what it reports of them: each redaction, when and why.
import { recomputeAmendmentHash } from '../events/chain.js';
import type { StoredEvent } from '../events/events.js';
import type { Problem, Redaction } from '../protocol/answers.js';

export class MemoryEditChecks {
  /** Each summary's chain hash, by its number: what an amendment or a redaction names. */
  private readonly hashes = new Map<number, string>();
  /** Events stored without their text that no redaction has explained yet. */
  private readonly emptied = new Map<number, string | undefined>();
  private readonly redactions: Redaction[] = [];
  private amendments = 0;

  check(event: StoredEvent, mine: boolean, problem: (p: Problem) => void): void {
    const data = event.data as { job?: string; redacted?: true };
    if (data.redacted) this.emptied.set(event.seq, data.job);
    switch (event.type) {
      case 'SummaryAccepted':
        this.hashes.set(event.seq, event.data.hash);
        return;
      case 'SummaryAmended': {
        if (!mine) return;
        this.amendments += 1;
        const { job, entry, entryHash, hash, redacted } = event.data;
        if (this.hashes.get(entry) !== entryHash) problem({ seq: event.seq, job, what: `the amendment names summary #${entry} by a hash that is not that summary's` });
        if (!redacted && recomputeAmendmentHash(event.data) !== hash)
          problem({ seq: event.seq, job, what: 'the amendment does not match its hash: its text or another field was changed after it was recorded' });
        return;
      }
      case 'EntryRedacted': {
        const { job, seq, what, hash, amendments = [], reason, by, time } = event.data;
        for (const emptied of [seq, ...amendments]) {
          if (this.emptied.has(emptied)) this.emptied.delete(emptied);
          else if (mine) problem({ seq: event.seq, job, what: `#${emptied} was redacted, but the log still holds its text` });
        }
        if (!mine) return;
        if (what === 'summary' && this.hashes.get(seq) !== hash) problem({ seq: event.seq, job, what: `the redaction of summary #${seq} kept a hash that is not the summary's` });
        this.redactions.push({ seq, job, what, at: event.seq, time, ...(reason !== undefined ? { reason } : {}), ...(by !== undefined ? { by } : {}) });
        return;
      }
      default:
        return;
    }
  }

  /** The events without their text that no redaction explains: changed in the log by something else. */
  unexplained(): Problem[] {
    return [...this.emptied].map(([seq, job]) => ({ seq, ...(job !== undefined ? { job } : {}), what: 'its text is gone, but no redaction in the log says so' }));
  }

  report(): { redactions: Redaction[]; amendments: number } {
    return { redactions: this.redactions, amendments: this.amendments };
  }
}
