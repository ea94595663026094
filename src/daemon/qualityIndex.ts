// The memory quality signals (qualitySignals.ts), folded from the whole log the first time
// they are asked for (`recap report --quality`, a telemetry export), then kept up to date
// from the appends. Nothing is read before that: a daemon nobody asks pays nothing.
import type { StoredEvent } from '../events/events.js';
import { emptyQuality, foldQuality, jobQuality, qualityTotals, type JobQuality, type QualityTotals } from '../events/qualitySignals.js';
import type { EventStore } from './eventStore.js';

export class QualityIndex {
  private readonly fold = emptyQuality();
  private building: Promise<void> | undefined;
  private built = false;
  private buffered: StoredEvent[] | undefined;
  private readonly follow = (stored: StoredEvent[]) => {
    if (this.buffered) this.buffered.push(...stored);
    else for (const event of stored) foldQuality(this.fold, event);
  };

  constructor(private readonly store: EventStore) {}

  /** The job's signals from the log so far; undefined for a job with no summary. */
  async of(job: string): Promise<JobQuality | undefined> {
    await this.ready();
    return jobQuality(this.fold, job);
  }

  /** The jobs with a summary. */
  async jobs(): Promise<string[]> {
    await this.ready();
    return [...this.fold.jobs.keys()].sort();
  }

  /** Every job's totals now, for telemetry's export: none until the log is folded (the first call starts it). */
  totals(): [job: string, totals: QualityTotals][] {
    if (!this.built) {
      void this.ready().catch(() => undefined);
      return [];
    }
    return qualityTotals(this.fold);
  }

  stop(): void {
    this.store.off('appended', this.follow);
  }

  private ready(): Promise<void> {
    return (this.building ??= this.build());
  }

  private async build(): Promise<void> {
    this.buffered = [];
    this.store.on('appended', this.follow);
    const upTo = this.store.lastSeq;
    await this.store.flushed();
    for await (const batch of this.store.readBatches(1, upTo)) for (const event of batch) foldQuality(this.fold, event);
    const held = this.buffered;
    this.buffered = undefined;
    for (const event of held) if (event.seq > upTo) foldQuality(this.fold, event);
    this.built = true;
  }
}
