// Summary texts on demand. The projection keeps each summary's place in its chain, not its
// text: the texts are read from the log by sequence number when a message shows them. The
// newest texts (those just accepted, those just read) are kept, up to a budget of characters, so
// showing the memory at each session start seldom reads the log at all.
import type { SummaryTexts } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';

const DEFAULT_BUDGET_CHARS = 8 * 1024 * 1024;

export class SummaryTextCache {
  /** Oldest first: a Map keeps insertion order, and a text used again moves to the end. */
  private readonly kept = new Map<number, string>();
  private chars = 0;

  constructor(
    private readonly store: Pick<EventStore, 'get'>,
    private readonly budgetChars = DEFAULT_BUDGET_CHARS,
  ) {}

  /** A summary just accepted or read: its text is likely to be shown again soon. */
  remember(seq: number, text: string): void {
    const previous = this.kept.get(seq);
    if (previous !== undefined) {
      this.kept.delete(seq);
      this.chars -= previous.length;
    }
    this.kept.set(seq, text);
    this.chars += text.length;
    for (const [oldest, old] of this.kept) {
      if (this.chars <= this.budgetChars || oldest === seq) break;
      this.kept.delete(oldest);
      this.chars -= old.length;
    }
  }

  /** The texts of these summaries, from memory or else from the log. */
  async load(seqs: readonly number[]): Promise<SummaryTexts> {
    const texts = new Map<number, string>();
    const missing: number[] = [];
    for (const seq of seqs) {
      const text = this.kept.get(seq);
      if (text === undefined) missing.push(seq);
      else texts.set(seq, text);
    }
    for (const event of missing.length > 0 ? await this.store.get(missing) : []) {
      if (event.type !== 'SummaryAccepted') continue;
      texts.set(event.seq, event.data.text);
    }
    for (const [seq, text] of texts) this.remember(seq, text);
    return texts;
  }
}
