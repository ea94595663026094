// A job's token meter, event by event: the unsummarized tokens `evolve` keeps in the job's
// state, without keeping the interactions' texts. The audit page draws it over the whole
// log, where the job state's pending list (texts and all) would cost far too much memory.
import type { StoredEvent } from './events.js';

/** What a meter holds: the interactions not yet summarized, oldest first, and their sum. */
export type MeterState = { seqs: number[]; tokens: number[]; value: number };

export class Meter {
  /** The counted interactions not yet summarized: sequence numbers and tokens, oldest first from `head`. */
  private seqs: number[] = [];
  private tokens: number[] = [];
  private head = 0;
  value = 0;

  /** A meter that holds `state` (as `state()` gave it). */
  static from(state: MeterState): Meter {
    const meter = new Meter();
    meter.seqs = [...state.seqs];
    meter.tokens = [...state.tokens];
    meter.value = state.value;
    return meter;
  }

  state(): MeterState {
    return { seqs: this.seqs.slice(this.head), tokens: this.tokens.slice(this.head), value: this.value };
  }

  /**
   * Folds one of the job's events in; true when the meter moved. As in `evolve`, an accepted
   * summary leaves only the interactions after the last one it covers, and they were
   * recorded in order, so it drops a prefix. A summary always counts as a move: the page
   * draws the drop at it, even of nothing.
   */
  apply(event: StoredEvent): boolean {
    if (event.type === 'InteractionRecorded') {
      if (!event.data.counted) return false;
      this.seqs.push(event.seq);
      this.tokens.push(event.data.tokens);
      this.value += event.data.tokens;
      return true;
    }
    if (event.type !== 'SummaryAccepted') return false;
    const covered = event.data.coversThrough;
    while (this.head < this.seqs.length && this.seqs[this.head]! <= covered) {
      this.value -= this.tokens[this.head]!;
      this.head += 1;
    }
    if (this.head === this.seqs.length) {
      this.seqs = [];
      this.tokens = [];
      this.head = 0;
      this.value = 0;
    } else if (this.head > 4096 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.tokens = this.tokens.slice(this.head);
      this.head = 0;
    }
    return true;
  }
}
