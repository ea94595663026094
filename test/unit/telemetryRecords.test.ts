// What telemetry makes of an event and of a hook's answer: the log record's attributes hold
// the event's facts and none of its texts unless asked, and a deny is read in every dialect.
import { describe, expect, it } from 'vitest';
import { hookDecision } from '../../src/daemon/telemetry/hookDecision.js';
import { eventRecord } from '../../src/daemon/telemetry/logs.js';
import type { StoredEvent } from '../../src/events/events.js';

const prompt: StoredEvent = {
  seq: 3,
  version: 1,
  type: 'InteractionRecorded',
  data: { job: 'j', kind: 'prompt', text: 'my secret plan', tokens: 4, counted: true, session: 's', agent: 'main', time: 1000 },
};

describe('eventRecord', () => {
  it('names the record recap.<Type> and carries the facts, without the text by default', () => {
    expect(eventRecord(prompt, false)).toEqual({
      eventName: 'recap.InteractionRecorded',
      timestamp: 1000,
      severityNumber: 9,
      severityText: 'INFO',
      body: 'InteractionRecorded',
      attributes: { 'event.name': 'recap.InteractionRecorded', seq: 3, version: 1, job: 'j', kind: 'prompt', tokens: 4, counted: true, session: 's', agent: 'main', time: 1000 },
    });
  });

  it("flattens a session's rows per model and per agent into plain attributes", () => {
    const row = { input: 120, output: 8, cacheCreation: 0, cacheRead: 20 };
    const ended: StoredEvent = {
      seq: 9,
      version: 1,
      type: 'SessionEnded',
      data: {
        job: 'j',
        session: 's',
        from: 'claude',
        reason: 'other',
        started: 500,
        ...row,
        byModel: [{ model: 'claude-opus-5', ...row }],
        byAgent: [{ agent: 'main', ...row }],
        toolCalls: 3,
        denials: 1,
        interactions: 2,
        countedTokens: 40,
        time: 1000,
      },
    };
    expect(eventRecord(ended, false).attributes).toMatchObject({
      from: 'claude',
      reason: 'other',
      input: 120,
      toolCalls: 3,
      denials: 1,
      'byModel.claude-opus-5.input': 120,
      'byModel.claude-opus-5.cacheRead': 20,
      'byAgent.main.output': 8,
    });
  });

  it('adds texts, notes and problems only when asked', () => {
    expect(eventRecord(prompt, true).attributes).toHaveProperty('text', 'my secret plan');
    const rejected: StoredEvent = { seq: 4, version: 1, type: 'SummaryRejected', data: { job: 'j', problems: ['too short'], tokens: 9, time: 2000 } };
    expect(eventRecord(rejected, false).attributes).not.toHaveProperty('problems');
    expect(eventRecord(rejected, true).attributes).toHaveProperty('problems', ['too short']);
    const manual: StoredEvent = { seq: 5, version: 1, type: 'GateTripped', data: { job: 'j', reason: 'manual', unsummarizedTokens: 9, limit: 0, note: 'stop now', time: 3000 } };
    expect(eventRecord(manual, false).attributes).toMatchObject({ reason: 'manual', unsummarizedTokens: 9 });
    expect(eventRecord(manual, false).attributes).not.toHaveProperty('note');
  });

  it('carries who ran a user’s command (a pause, a config approval) as by.* and caller.* attributes', () => {
    const by = { pid: 4242, program: 'recap', ancestry: 'recap < bash < sshd' };
    const paused: StoredEvent = { seq: 6, version: 1, type: 'GatePaused', data: { job: 'j', until: 9000, by, time: 4000 } };
    expect(eventRecord(paused, false).attributes).toMatchObject({ 'by.pid': 4242, 'by.program': 'recap', 'by.ancestry': 'recap < bash < sshd' });
    const approved = {
      seq: 7,
      version: 2,
      type: 'ConfigApproved',
      data: { file: '/p/.recap/config.conf', hash: 'h', by: 'allow', caller: by, time: 5000 },
    } as unknown as StoredEvent;
    expect(eventRecord(approved, false).attributes).toMatchObject({ by: 'allow', 'caller.pid': 4242, 'caller.ancestry': 'recap < bash < sshd' });
  });

  it('leaves out objects (a configuration’s values)', () => {
    const applied: StoredEvent = { seq: 1, version: 1, type: 'ConfigApplied', data: { values: { threshold: 5 }, sources: { threshold: 'env' }, time: 1 } };
    expect(Object.keys(eventRecord(applied, true).attributes ?? {})).toEqual(['event.name', 'seq', 'version', 'time']);
  });
});

describe('hookDecision', () => {
  it('reads a deny in each agent’s dialect, and anything else as allow', () => {
    const json = (value: unknown) => ({ stdout: JSON.stringify(value), exitCode: 0 });
    expect(hookDecision(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'x' } }))).toBe('deny');
    expect(hookDecision(json({ permissionDecision: 'deny' }))).toBe('deny');
    expect(hookDecision(json({ decision: 'deny', reason: 'x' }))).toBe('deny');
    expect(hookDecision(json({ decision: 'block', reason: 'x' }))).toBe('deny');
    expect(hookDecision(json({ deny: 'x' }))).toBe('deny');
    expect(hookDecision({ stdout: '', exitCode: 2 })).toBe('deny');
    expect(hookDecision({ stdout: '', exitCode: 0 })).toBe('allow');
    expect(hookDecision(json({ systemMessage: 'recap: the gate tripped' }))).toBe('allow');
    expect(hookDecision(json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'x' } }))).toBe('allow');
    expect(hookDecision({ stdout: '{not json', exitCode: 0 })).toBe('allow');
  });
});
