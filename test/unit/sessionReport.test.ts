// A session's report folded from its events, and its end recorded with its figures.
import { describe, expect, it } from 'vitest';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../../src/events/events.js';
import { figuresOf, sessionReport } from '../../src/events/sessionReport.js';
import { given, JOB, T0 } from '../helpers/spec.js';

const S = 'sess-1';
let seq = 0;
const stored = (event: RecapEvent): StoredEvent => ({ ...event, seq: (seq += 1), version: CURRENT_VERSION[event.type] }) as StoredEvent;

const usage = (key: string, agent: string, model: string | undefined, input: number, output: number, at = T0, session = S): StoredEvent =>
  stored({ type: 'UsageRecorded', data: { job: JOB, session, agent, key, ...(model !== undefined ? { model } : {}), input, output, cacheCreation: 2, cacheRead: 3, time: at } });
const prompt = (tokens: number, counted: boolean, at = T0): StoredEvent =>
  stored({ type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text: 'x', tokens, counted, session: S, time: at } });
const denied = (at = T0): StoredEvent => stored({ type: 'ToolDenied', data: { job: JOB, tool: 'Bash', cause: 'gate', session: S, agent: 'main', time: at } });

const HISTORY = (): StoredEvent[] => [
  prompt(40, true, T0),
  usage('m1:r1', 'main', 'claude-opus-5', 100, 10, T0 + 1),
  usage('m2:r2', 'agent-7', 'claude-haiku-5', 50, 5, T0 + 2),
  usage('m3:r3', 'main', 'claude-opus-5', 30, 3, T0 + 3),
  usage('x:y', 'main', 'claude-opus-5', 999, 999, T0 + 3, 'another-session'),
  denied(T0 + 4),
  prompt(7, false, T0 + 5),
];

describe("a session's report", () => {
  it('sums its tokens per model and per agent, its interactions, counted tokens and denials, and spans its events', () => {
    const report = sessionReport(S, HISTORY())!;
    expect(figuresOf(report, 4)).toEqual({
      input: 180,
      output: 18,
      cacheCreation: 6,
      cacheRead: 9,
      byModel: [
        { model: 'claude-haiku-5', input: 50, output: 5, cacheCreation: 2, cacheRead: 3 },
        { model: 'claude-opus-5', input: 130, output: 13, cacheCreation: 4, cacheRead: 6 },
      ],
      byAgent: [
        { agent: 'agent-7', input: 50, output: 5, cacheCreation: 2, cacheRead: 3 },
        { agent: 'main', input: 130, output: 13, cacheCreation: 4, cacheRead: 6 },
      ],
      toolCalls: 4,
      denials: 1,
      interactions: 2,
      countedTokens: 40,
    });
    expect([report.started, report.last, report.ended]).toEqual([T0, T0 + 5, undefined]);
  });

  it('counts usage with no model under "unknown"', () => {
    expect(sessionReport(S, [usage('k', 'main', undefined, 1, 1)])!.byModel.map((m) => m.model)).toEqual(['unknown']);
  });

  it('is undefined for a session with no events', () => {
    expect(sessionReport('nobody', HISTORY())).toBeUndefined();
  });

  it('folds the same way twice', () => {
    const events = HISTORY();
    expect(sessionReport(S, events)).toEqual(sessionReport(S, events));
  });

  it('says the session ended, when, why, by which agent, and keeps the tool calls its end recorded', () => {
    const figures = figuresOf(sessionReport(S, HISTORY())!, 6);
    const end = stored({ type: 'SessionEnded', data: { job: JOB, session: S, from: 'claude', reason: 'other', started: T0, ...figures, time: T0 + 9 } });
    const report = sessionReport(S, [...HISTORY(), end])!;
    expect(report).toMatchObject({ from: 'claude', ended: { time: T0 + 9, reason: 'other' }, toolCalls: 6, input: 180, last: T0 + 9 });
  });
});

describe('EndSession', () => {
  const figures = figuresOf(sessionReport(S, HISTORY())!, 2);

  it('records SessionEnded with the figures handed in', () => {
    given([])
      .when({ type: 'EndSession', job: JOB, session: S, from: 'gemini', reason: 'exit', started: T0, figures, now: T0 + 10 })
      .then([{ type: 'SessionEnded', data: { job: JOB, session: S, from: 'gemini', reason: 'exit', started: T0, ...figures, time: T0 + 10 } }]);
  });

  it('records an end with no reason, and a second end of a resumed session, never refusing', () => {
    const ended: RecapEvent = { type: 'SessionEnded', data: { job: JOB, session: S, from: 'codex', started: T0, ...figures, time: T0 + 10 } };
    given([ended])
      .when({ type: 'EndSession', job: JOB, session: S, from: 'codex', started: T0, figures, now: T0 + 20 })
      .then([{ type: 'SessionEnded', data: { job: JOB, session: S, from: 'codex', started: T0, ...figures, time: T0 + 20 } }]);
  });
});
