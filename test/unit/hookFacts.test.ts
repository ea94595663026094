// The facts a hook and the daemon record besides the gate's own, as the domain decides them:
// a notice shown to the user, recap switched off in a session (RECAP_DISABLE=1), and the
// configuration in force put on record (ConfigApplied).
import { describe, expect, it } from 'vitest';
import type { ApplyConfig, RecordNoticeShown, RecordRecapOff } from '../../src/events/commands.js';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { decideConfig } from '../../src/events/decide.js';
import type { RecapEvent } from '../../src/events/events.js';
import { owedNotice } from '../../src/events/notices.js';
import { gateTripped, given, interactionRecorded, JOB, stateFrom, T0 } from '../helpers/spec.js';

const shown = (about: number): RecordNoticeShown => ({
  type: 'RecordNoticeShown',
  job: JOB,
  about,
  kind: 'tripped',
  text: 'recap: the gate tripped',
  session: 's1',
  agent: 'claude',
  now: T0,
});
const off = (session?: string): RecordRecapOff => ({ type: 'RecordRecapOff', job: JOB, ...(session !== undefined ? { session } : {}), agent: 'codex', now: T0 });
const disabled = (session?: string): RecapEvent => ({ type: 'RecapDisabled', data: { job: JOB, ...(session !== undefined ? { session } : {}), agent: 'codex', time: T0 } });

describe('a notice shown to the user', () => {
  it('given a trip that owes a notice, when a hook shows it, then NoticeShown is recorded and nothing is owed any more', () => {
    const before = [interactionRecorded(600), gateTripped(600)];
    const decision = given(before)
      .when(shown(2))
      .then([{ type: 'NoticeShown', data: { job: JOB, about: 2, kind: 'tripped', text: 'recap: the gate tripped', session: 's1', agent: 'claude', time: T0 } }]);
    expect(decision.answer).toEqual({ recorded: true });
    expect(owedNotice(stateFrom([...before, ...decision.events]))).toBeUndefined();
  });

  it('given nothing owed, when a hook reports a notice shown, then it is recorded all the same (the line did reach the user)', () => {
    given([interactionRecorded(5)])
      .when({ type: 'RecordNoticeShown', job: JOB, about: 1, kind: 'tripped', text: 'recap: the gate tripped', now: T0 })
      .then([{ type: 'NoticeShown', data: { job: JOB, about: 1, kind: 'tripped', text: 'recap: the gate tripped', time: T0 } }]);
  });
});

describe('recap switched off in a session (RECAP_DISABLE=1)', () => {
  it("given nothing, when a session's hook finds recap off, then RecapDisabled is recorded and it is the session's first", () => {
    const decision = given([])
      .when(off('s1'))
      .then([disabled('s1')]);
    expect(decision.answer).toEqual({ first: true });
  });

  it('given the session already said so, when its next hook finds recap off, then nothing is recorded', () => {
    expect(
      given([disabled('s1')])
        .when(off('s1'))
        .then([]).answer,
    ).toEqual({ first: false });
  });

  it('given another session said so, when a call without a session finds recap off, then it is recorded for the calls without one', () => {
    given([disabled('s1')])
      .when(off())
      .then([disabled()]);
  });
});

describe('the configuration in force, on record', () => {
  const USER = { ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 400 };
  const PROJECT = { ...USER, TOKEN_THRESHOLD: 100 };
  const sources = { TOKEN_THRESHOLD: '/home/dev/app/.recap/config.conf:1' };
  const apply = (fields: Partial<ApplyConfig>): ApplyConfig => ({ type: 'ApplyConfig', values: PROJECT, sources, now: T0, ...fields });

  it('given no record at all, when the user-wide configuration applies, then ConfigApplied records it without a job', () => {
    const decision = decideConfig(apply({ values: USER }));
    expect(decision.events).toEqual([{ type: 'ConfigApplied', data: { values: USER, sources, time: T0 } }]);
    expect(decision.answer).toEqual({ applied: true });
  });

  it("given the user-wide record, when a job's project file makes it differ, then ConfigApplied records it for the job", () => {
    expect(decideConfig(apply({ job: JOB, userRecorded: USER, userValues: USER })).events).toEqual([
      { type: 'ConfigApplied', data: { job: JOB, values: PROJECT, sources, time: T0 } },
    ]);
  });

  it("given a job's own record of these values, when they apply again, then nothing is recorded", () => {
    expect(decideConfig(apply({ job: JOB, recorded: { ...PROJECT }, userRecorded: USER })).events).toEqual([]);
  });

  it('given a job without a record of its own, when the user-wide values in force apply, then nothing is recorded (it follows the user-wide record)', () => {
    expect(decideConfig(apply({ job: JOB, values: USER, userRecorded: DEFAULT_CONFIG, userValues: USER })).events).toEqual([]);
  });

  it('given the user-wide record of these values, when they apply again, then nothing is recorded', () => {
    const decision = decideConfig(apply({ values: USER, userRecorded: { ...USER } }));
    expect(decision).toEqual({ answer: { applied: false }, events: [] });
  });
});
