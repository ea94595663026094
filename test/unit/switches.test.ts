// The user's switches on a job's gate, as the domain decides them: trip --cancel, no trip
// with nothing to summarize, pause and resume, <private> text, and the notices owed to the user.
import { describe, expect, it } from 'vitest';
import type { RecapEvent } from '../../src/events/events.js';
import { gateStatus } from '../../src/events/gate.js';
import { owedNotice } from '../../src/events/notices.js';
import { withoutPrivate } from '../../src/events/privateText.js';
import { check, context, gateTripped, given, interactionRecorded, JOB, record, stateFrom, submit, T0, validSummary, words } from '../helpers/spec.js';

const HOUR = 3_600_000;
const paused = (until = T0 + HOUR): RecapEvent => ({ type: 'GatePaused', data: { job: JOB, until, time: T0 - 1 } });
const cancel = { type: 'CancelTrip' as const, job: JOB, now: T0 };
const trip = { type: 'TripGate' as const, job: JOB, now: T0 };

describe('recap trip and trip --cancel', () => {
  it('given nothing to summarize, when the user trips the gate, then it is refused and nothing is stored', () => {
    given([])
      .when(trip)
      .thenRefused(/nothing to summarize/);
  });

  it('given a tripped gate, when the user cancels it, then the gate opens and the interactions stay unsummarized', () => {
    const before = [interactionRecorded(600), gateTripped(600)];
    const decision = given(before)
      .when(cancel)
      .then([{ type: 'TripCancelled', data: { job: JOB, reason: 'threshold', time: T0 } }]);
    expect(decision.answer).toEqual({ cancelled: true });
    const after = stateFrom([...before, ...decision.events]);
    expect(after.gate.tripped).toBe(false);
    expect(after.unsummarizedTokens).toBe(600);
    // A trip the user undid owes them no notice.
    expect(owedNotice(after)).toBeUndefined();
  });

  it('given an open gate, when the user cancels, then nothing happens', () => {
    expect(
      given([interactionRecorded(5)])
        .when(cancel)
        .then([]).answer,
    ).toEqual({ cancelled: false });
  });

  it('given nothing pending and a context trigger, when a check reports a full context, then the gate does not trip', () => {
    const config = { TRIGGER_CONTEXT_PERCENT: 50, CONTEXT_WINDOW: 1000 };
    given([], config)
      .when({ ...check('Read', { file_path: '/x' }), session: 's1', contextTokens: 900 } as never)
      .then([]);
  });
});

describe('recap pause and resume', () => {
  it('given a pause, when a prompt over the threshold is recorded, then it is stored as paused and uncounted, and nothing trips', () => {
    given([paused()])
      .when(record(words(900)))
      .then([{ type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text: words(900), tokens: 900, counted: false, paused: true, time: T0 } }]);
  });

  it('given a tripped gate and a pause, when a tool is checked, then it is allowed and no denial is stored', () => {
    const decision = given([interactionRecorded(600), gateTripped(600), paused()])
      .when(check('Read', { file_path: '/x' }))
      .then([]);
    expect(decision.answer).toEqual({ allow: true });
  });

  it("given a pause, when the agent touches recap's own files, then it is still denied", () => {
    const decision = given([paused()])
      .when(check('Read', { file_path: '/home/dev/.local/share/recap/log/CURRENT' }))
      .decision();
    expect(decision.answer).toMatchObject({ allow: false });
  });

  it('given a pause that has ended, when a prompt is recorded, then it counts and trips as usual', () => {
    const { events } = given([paused(T0)])
      .when(record(words(600)))
      .decision();
    expect(events.map((e) => e.type)).toEqual(['InteractionRecorded', 'GateTripped']);
  });

  it('when the user pauses, then GatePaused records the end; an end in the past is refused', () => {
    given([])
      .when({ type: 'PauseGate', job: JOB, until: T0 + HOUR, now: T0 })
      .then([{ type: 'GatePaused', data: { job: JOB, until: T0 + HOUR, time: T0 } }]);
    given([])
      .when({ type: 'PauseGate', job: JOB, until: T0, now: T0 })
      .thenRefused(/must end in the future/);
  });

  it('given a pause, when the user resumes, then GateResumed is stored and the status shows no pause; without one, nothing', () => {
    const decision = given([paused()])
      .when({ type: 'ResumeGate', job: JOB, now: T0 })
      .then([{ type: 'GateResumed', data: { job: JOB, time: T0 } }]);
    const state = stateFrom([paused(), ...decision.events]);
    expect(gateStatus(state, context().config, T0).pausedUntil).toBeUndefined();
    expect(gateStatus(stateFrom([paused()]), context().config, T0).pausedUntil).toBe(new Date(T0 + HOUR).toISOString());
    given([]).when({ type: 'ResumeGate', job: JOB, now: T0 }).then([]);
  });
});

describe('<private> text in a prompt', () => {
  it('is neither stored nor counted', () => {
    const { events } = given([]).when(record('deploy to staging <private>password hunter2 and the rest</private> tomorrow')).decision();
    expect(events).toEqual([{ type: 'InteractionRecorded', data: expect.objectContaining({ text: 'deploy to staging  tomorrow', tokens: 4 }) }]);
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('keeps everything after an unclosed tag private, any case of the tag, several spans', () => {
    expect(withoutPrivate('a <PRIVATE>b</Private> c <private>d')).toBe('a  c ');
    expect(withoutPrivate('no tags here')).toBe('no tags here');
  });

  it('given a prompt that is all private, when recorded, then nothing is stored and nothing is refused', () => {
    expect(given([]).when(record('<private>only this</private>')).then([]).answer).toEqual({ tokens: 0 });
  });
});

describe('notices to the user', () => {
  it('a trip owes a notice naming its cause; NoticeShown pays it and is remembered for status', () => {
    const events = [interactionRecorded(600), gateTripped(600)];
    const notice = owedNotice(stateFrom(events));
    expect(notice).toMatchObject({ kind: 'tripped', seq: 2 });
    expect(notice?.text).toMatch(/^recap: the gate of job demo-0badc0de tripped \(600 unsummarized tokens reached the threshold of 500\)/);
    const shown: RecapEvent = { type: 'NoticeShown', data: { job: JOB, about: 2, kind: 'tripped', text: notice!.text, time: T0 + 5 } };
    const after = stateFrom([...events, shown]);
    expect(owedNotice(after)).toBeUndefined();
    expect(gateStatus(after, context().config).lastNotice).toEqual({ kind: 'tripped', time: new Date(T0 + 5).toISOString() });
  });

  it('an accepted summary owes a notice that the gate is open', () => {
    const before = [interactionRecorded(600), gateTripped(600)];
    const { events } = given(before).when(submit(validSummary())).decision();
    expect(events.map((e) => e.type)).toEqual(['SummaryAccepted']);
    expect(owedNotice(stateFrom([...before, ...events]))?.text).toBe('recap: a summary of job demo-0badc0de was accepted (1 in its chain); the gate is open');
  });
});
