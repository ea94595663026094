// Summary texts on demand. The projection keeps each summary's place in its chain, not its
// text: the texts are read from the log by sequence number when a message shows them. The
// newest texts (those just accepted, those just read) are kept, up to a budget of characters, so
// showing the memory at each session start seldom reads the log at all.
import { importedInForce, redactedText, type EntryText } from '../events/entryText.js';
import type { SummaryTexts } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';

/** Where each summary's text in force is (entryText.ts); a summary it does not know is its own. */
export type TextSources = (seq: number) => EntryText | undefined;

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

  /** A summary amended or redacted: the text kept for it is no longer the one in force. */
  forget(seq: number): void {
    const previous = this.kept.get(seq);
    if (previous === undefined) return;
    this.kept.delete(seq);
    this.chars -= previous.length;
  }

  /**
   * The texts in force of these summaries (by the summary's number), from memory or else
   * from the log: the summary's own, its newest amendment's, or what stands for a redacted one;
   * another machine's entry's from its SummaryImported event.
   */
  async load(seqs: readonly number[], sources: TextSources = () => undefined): Promise<SummaryTexts> {
    const texts = new Map<number, string>();
    /** The event to read for each summary whose text is not kept. */
    const missing = new Map<number, number>();
    for (const seq of seqs) {
      const text = this.kept.get(seq);
      if (text !== undefined) {
        texts.set(seq, text);
        continue;
      }
      const source = sources(seq) ?? { state: 'original', seq };
      if (source.state === 'redacted') texts.set(seq, redactedText(seq, source.time, source.reason));
      else missing.set(source.seq, seq);
    }
    for (const event of missing.size > 0 ? await this.store.get([...missing.keys()]) : []) {
      // Another machine's entry: the text in force among those its import carries.
      if (event.type === 'SummaryImported') texts.set(missing.get(event.seq)!, importedInForce(event.data).text);
      if (event.type !== 'SummaryAccepted' && event.type !== 'SummaryAmended') continue;
      texts.set(missing.get(event.seq)!, event.data.text);
    }
    for (const [seq, text] of texts) this.remember(seq, text);
    return texts;
  }
}
