// The memory quality signals (qualitySignals.ts), folded from the whole log the first time
// they are asked for (`recap report --quality`, a telemetry export), then kept up to date
// from the appends. Nothing is read before that: a daemon nobody asks pays nothing.
import { emptyQuality, foldQuality, jobQuality, qualityTotals, type JobQuality, type QualityTotals } from '../events/qualitySignals.js';
import type { EventStore } from './eventStore.js';
import { LogFold } from './logFold.js';

export class QualityIndex {
  private readonly fold = emptyQuality();
  private readonly log: LogFold;

  constructor(store: EventStore) {
    this.log = new LogFold(store, (event) => foldQuality(this.fold, event));
  }

  /** The job's signals from the log so far; undefined for a job with no summary. */
  async of(job: string): Promise<JobQuality | undefined> {
    await this.log.ready();
    return jobQuality(this.fold, job);
  }

  /** The jobs with a summary. */
  async jobs(): Promise<string[]> {
    await this.log.ready();
    return [...this.fold.jobs.keys()].sort();
  }

  /** Every job's totals now, for telemetry's export: none until the log is folded (the first call starts it). */
  totals(): [job: string, totals: QualityTotals][] {
    if (!this.log.built) {
      void this.log.ready().catch(() => undefined);
      return [];
    }
    return qualityTotals(this.fold);
  }

  stop(): void {
    this.log.stop();
  }
}
