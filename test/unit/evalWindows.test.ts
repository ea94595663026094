// recap eval --log's replay: each accepted summary's window is the interactions since the
// job's previous one, judged again by today's rules with the configuration the log recorded,
// and the memory after it measured; a redacted summary cannot be judged.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import type { RecapEvent, StoredEvent } from '../../src/events/events.js';
import { replayWindows, windowFigures } from '../../src/events/evalWindows.js';
import { evolve, initialJobState, type JobState } from '../../src/events/jobState.js';
import { submitSummary } from '../../src/events/summaries.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { goodSummary, prose } from '../helpers/text.js';

const count = await tokenCounter(DEFAULT_CONFIG);
const NOW = Date.UTC(2026, 0, 1);

/** A log built as the daemon builds one: each summary decided by submitSummary on the job's state. */
class Log {
  readonly events: StoredEvent[] = [];
  private readonly states = new Map<string, JobState>();
  private readonly texts = new Map<number, string>();

  private store(event: RecapEvent): StoredEvent {
    const stored = { ...event, seq: this.events.length + 1, version: 1 } as StoredEvent;
    this.events.push(stored);
    const job = (event.data as { job?: string }).job;
    if (job !== undefined) {
      const state = this.states.get(job) ?? initialJobState(job);
      this.states.set(job, evolve(state, stored));
    }
    return stored;
  }

  prompt(job: string, text: string): this {
    this.store({ type: 'InteractionRecorded', data: { job, kind: 'prompt', text, tokens: count(text), counted: true, time: NOW } });
    return this;
  }

  /** A summary the daemon accepted with `text`; `as` forces an accepted event whatever the rules say (an older recap's). */
  summary(job: string, text: string, as: 'decided' | 'forced' = 'decided'): this {
    const state = this.states.get(job)!;
    const ctx = { config: DEFAULT_CONFIG, count, recapPaths: new Set<string>(), protected: { paths: [], home: '' }, texts: this.texts };
    if (as === 'forced') {
      const covers = state.pending.at(-1)!.seq;
      this.texts.set(
        this.store({ type: 'SummaryAccepted', data: { job, level: 0, sections: [], text, tokens: count(text), coversThrough: covers, hash: 'h', prevHash: '', time: NOW } }).seq,
        text,
      );
      return this;
    }
    const { answer, events } = submitSummary({ type: 'SubmitSummary', job, text, now: NOW }, state, ctx);
    if (!answer.accepted) throw new Error(`the test's summary was rejected: ${answer.problems.join('; ')}`);
    for (const event of events) {
      const stored = this.store(event);
      if (stored.type === 'SummaryAccepted') this.texts.set(stored.seq, text);
    }
    return this;
  }

  calls(job: string, paths: string[]): this {
    this.store({ type: 'FirstCallsRecorded', data: { job, session: 's1', calls: paths.map((path) => ({ kind: 'read', paths: [path] })), time: NOW } });
    return this;
  }

  config(job: string, values: Record<string, unknown>): this {
    this.store({ type: 'ConfigApplied', data: { job, values: { ...DEFAULT_CONFIG, ...values }, sources: {}, time: NOW } });
    return this;
  }
}

describe('replayWindows', () => {
  it("gives each accepted summary the interactions since its job's previous one, numbered within the job", () => {
    const log = new Log().prompt('a', prose(15)).prompt('b', prose(3)).prompt('a', prose(14)).summary('a', goodSummary(undefined, 0));
    log.prompt('a', prose(16)).summary('a', goodSummary(undefined, 1));
    const windows = replayWindows(log.events, count);
    expect(windows.map((w) => [w.job, w.index, w.seq, w.interactions.map((i) => i.seq)])).toEqual([
      ['a', 1, 4, [1, 3]],
      ['a', 2, 6, [5]],
    ]);
    expect(windows[0]!.windowTokens).toBe(count(prose(15)) + count(prose(14)));
    expect(windows.map((w) => w.now)).toEqual(['accepted', 'accepted']);
  });

  it('measures the memory a next session is handed after each summary, which shows that summary', () => {
    const log = new Log().prompt('a', prose(15)).prompt('a', prose(15)).summary('a', goodSummary());
    const [window] = replayWindows(log.events, count);
    expect(window!.memory).toContain(goodSummary().split('\n').at(-1));
    expect(window!.memoryTokens).toBe(count(window!.memory));
    expect(window!.memoryTokens).toBeGreaterThan(window!.summaryTokens);
  });

  it("shows a summary the log accepted and today's rules reject, with today's reasons", () => {
    const log = new Log().prompt('a', prose(15)).summary('a', 'Gist: done\n\n## User Requests\nok', 'forced');
    const [window] = replayWindows(log.events, count);
    expect(window).toMatchObject({ now: 'rejected' });
    expect(window!.problems.join('; ')).toMatch(/tokens/);
    expect(windowFigures([window!])).toMatchObject({ windows: 1, accepted: 0, rejected: 1 });
  });

  it('judges with the configuration the log recorded for the job', () => {
    const log = new Log().prompt('a', prose(15)).prompt('a', prose(15)).summary('a', goodSummary());
    const stricter = new Log().config('a', { SUMMARY_MIN_TOKENS: 900 }).prompt('a', prose(15)).prompt('a', prose(15)).summary('a', goodSummary());
    expect(replayWindows(log.events, count)[0]!.now).toBe('accepted');
    const [window] = replayWindows(stricter.events, count);
    expect(window!.now).toBe('rejected');
    expect(window!.problems.join('; ')).toContain('900');
  });

  it('cannot judge a redacted summary, and marks a redacted interaction', () => {
    const log = new Log().prompt('a', prose(15)).prompt('a', prose(15)).summary('a', goodSummary());
    const redacted = log.events.map((e) => {
      if (e.type === 'SummaryAccepted') return { ...e, data: { ...e.data, text: '', sections: [], redacted: true as const } };
      if (e.seq === 1 && e.type === 'InteractionRecorded') return { ...e, data: { ...e.data, text: '', redacted: true as const } };
      return e;
    });
    const [window] = replayWindows(redacted, count);
    expect(window).toMatchObject({ now: 'redacted', problems: [] });
    expect(window!.interactions.map((i) => i.redacted)).toEqual([true, false]);
  });

  it('puts the tool calls the log sampled in the window their record falls in', () => {
    const log = new Log().prompt('a', prose(15)).calls('a', ['/p/src/parser.ts']).prompt('a', prose(15)).summary('a', goodSummary());
    log.calls('b', ['/p/other.ts']).prompt('a', prose(16)).calls('a', ['/p/README.md']).summary('a', goodSummary(undefined, 1));
    expect(replayWindows(log.events, count).map((w) => w.calls)).toEqual([[{ seq: 2, text: 'read /p/src/parser.ts' }], [{ seq: 7, text: 'read /p/README.md' }]]);
  });

  it('gives the same windows when replayed twice', () => {
    const log = new Log().prompt('a', prose(15)).prompt('a', prose(15)).summary('a', goodSummary());
    expect(replayWindows(log.events, count)).toEqual(replayWindows(log.events, count));
  });
});
