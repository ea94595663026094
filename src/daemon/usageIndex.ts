// The model's tokens per agent and model, summed per hour as UsageRecorded events arrive
// (one job's), and merged into series per hour or day for the audit page's usage view.
import type { UsageRecorded } from '../events/events.js';

export type UsagePoint = { time: number; input: number; output: number; cacheCreation: number; cacheRead: number };
export type UsageSeries = { agent: string; model: string; points: UsagePoint[] };

/** An agent and model's (`agent \t model`) sums in one hour, as a chunk of the audit index keeps them. */
export type UsageRow = [key: string, hour: number, input: number, output: number, cacheCreation: number, cacheRead: number];

const HOUR = 3_600_000;
export const BUCKETS = { hour: HOUR, day: 24 * HOUR } as const;
export type Bucket = keyof typeof BUCKETS;

export class HourlyUsage {
  /** agent \t model → hour → [input, output, cacheCreation, cacheRead]. */
  private readonly sums = new Map<string, Map<number, number[]>>();

  add({ agent, model, input, output, cacheCreation, cacheRead }: UsageRecorded['data'], time: number): void {
    const key = `${agent}\t${model ?? 'unknown'}`;
    let hours = this.sums.get(key);
    if (!hours) this.sums.set(key, (hours = new Map()));
    const hour = time - (time % HOUR);
    const sums = hours.get(hour) ?? [0, 0, 0, 0];
    sums[0]! += input;
    sums[1]! += output;
    sums[2]! += cacheCreation;
    sums[3]! += cacheRead;
    hours.set(hour, sums);
  }

  /** Each agent and model's sums per hour, in the order they came: [agent \t model, hour, input, output, cacheCreation, cacheRead]. */
  rows(): UsageRow[] {
    const rows: UsageRow[] = [];
    for (const [key, hours] of this.sums) for (const [hour, [a = 0, b = 0, c = 0, d = 0]] of hours) rows.push([key, hour, a, b, c, d]);
    return rows;
  }

  /** Adds rows as `rows()` gives them (another window's sums). */
  addRows(rows: readonly UsageRow[]): void {
    for (const [key, hour, ...add] of rows) {
      let hours = this.sums.get(key);
      if (!hours) this.sums.set(key, (hours = new Map()));
      const sums = hours.get(hour) ?? [0, 0, 0, 0];
      for (let i = 0; i < 4; i += 1) sums[i]! += add[i]!;
      hours.set(hour, sums);
    }
  }

  /** Several jobs' usage as one series per agent and model, summed per `bucket`, in time order. */
  static series(usages: readonly HourlyUsage[], bucket: Bucket): UsageSeries[] {
    const size = BUCKETS[bucket];
    const merged = new Map<string, Map<number, number[]>>();
    for (const usage of usages) {
      for (const [key, hours] of usage.sums) {
        let out = merged.get(key);
        if (!out) merged.set(key, (out = new Map()));
        for (const [hour, sums] of hours) {
          const at = hour - (hour % size);
          const into = out.get(at) ?? [0, 0, 0, 0];
          for (let i = 0; i < 4; i += 1) into[i]! += sums[i]!;
          out.set(at, into);
        }
      }
    }
    return [...merged].map(([key, buckets]) => {
      const [agent = '', model = ''] = key.split('\t');
      const points = [...buckets]
        .sort(([a], [b]) => a - b)
        .map(([time, [input = 0, output = 0, cacheCreation = 0, cacheRead = 0]]) => ({ time, input, output, cacheCreation, cacheRead }));
      return { agent, model, points };
    });
  }
}
