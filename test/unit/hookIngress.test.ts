// The hook ingress (src/hook/ingress.ts): what recap-hook, the launcher's endpoint and the
// HTTP endpoint all do with an input before and after the daemon decides.
import { describe, expect, it } from 'vitest';
import { AGENT_FACTS } from '../../src/agents/known.js';
import { MAX_HOOK_PAYLOAD } from '../../src/common/frames.js';
import { decideInTime, judgeInput, promptMark, refusedAnswer, withNote, type RawInput, type Refused } from '../../src/hook/ingress.js';

const facts = AGENT_FACTS.claude;
const refusedOf = (input: RawInput): Refused => {
  const judged = judgeInput(facts, input);
  if (judged.refused === undefined) throw new Error(`not refused: ${JSON.stringify(judged)}`);
  return judged.refused;
};
const unreadable = 'recap-hook could not read what Claude Code sent; if every call is denied this way, run `recap doctor`';

describe('the hook ingress judges an input', () => {
  it('takes one whole JSON object as the payload, with no note', () => {
    expect(judgeInput(facts, { kind: 'whole', text: ' {"hook_event_name":"PreToolUse","tool_name":"Read"}\n' })).toEqual({
      payload: { hook_event_name: 'PreToolUse', tool_name: 'Read' },
      note: undefined,
    });
  });

  it.each([
    ['', 'the hook got no input', undefined],
    ['   ', 'the hook input is not one complete JSON object', undefined],
    ['{"hook_event_name":"UserPromptSubmit","prompt":"cut', 'the hook input is not one complete JSON object', 'UserPromptSubmit'],
    ['[{"hook_event_name":"PreToolUse"}]', 'the hook input is not a JSON object', 'PreToolUse'],
    ['null', 'the hook input is not a JSON object', undefined],
  ])('refuses %j as unreadable, naming the event its first bytes name', (text, why, event) => {
    expect(refusedOf({ kind: 'whole', text })).toEqual({ cause: 'unreadable', event, why, advice: unreadable });
  });

  it('refuses a body the endpoint has no room for, and one that could not be read', () => {
    expect(refusedOf({ kind: 'busy', head: '{"hook_event_name":"PreToolUse"' })).toMatchObject({ cause: 'busy', event: 'PreToolUse', advice: 'try again in a moment' });
    expect(refusedOf({ kind: 'failed', why: 'stdin could not be read (EIO)' })).toEqual({
      cause: 'unreadable',
      event: undefined,
      why: 'stdin could not be read (EIO)',
      advice: unreadable,
    });
  });

  it('counts a prompt over the limit as far as it goes, with a note; refuses anything else that large', () => {
    const prefix = `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"${'q'.repeat(100)}`;
    expect(judgeInput(facts, { kind: 'oversized', head: prefix, prefix })).toEqual({
      payload: { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'q'.repeat(100) },
      note: 'recap: this prompt is over 64 MiB; its first 64 MiB were counted',
    });
    const tool = '{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"aaa';
    expect(refusedOf({ kind: 'oversized', head: tool, prefix: tool })).toMatchObject({
      cause: 'oversized',
      event: 'PreToolUse',
      why: 'the hook input is over 64 MiB, the most recap judges',
    });
    expect(MAX_HOOK_PAYLOAD).toBe(64 * 1024 * 1024);
  });
});

describe("the hook ingress's answers", () => {
  it('denies a refused tool call (or a call of no known event) and lets a prompt through with a notice', () => {
    const deny = (event: string | undefined) => JSON.parse(refusedAnswer(facts, { cause: 'unreadable', event, why: 'w', advice: 'a' }).stdout) as Record<string, unknown>;
    expect(deny('PreToolUse')).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'recap: w, so this tool call was denied: a.' } });
    expect(deny(undefined)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(deny('UserPromptSubmit')).toEqual({ systemMessage: 'recap: w; this UserPromptSubmit was not checked: a.' });
  });

  it("adds the note to the daemon's answer, and marks prompts only", () => {
    expect(withNote(facts, { stdout: '', exitCode: 0 }, 'n')).toEqual({ stdout: '{"systemMessage":"n"}', exitCode: 0 });
    expect(withNote(facts, { stdout: '{}', exitCode: 0 }, undefined)).toEqual({ stdout: '{}', exitCode: 0 });
    expect(promptMark(facts, { hook_event_name: 'UserPromptSubmit' }, 1000)).toMatchObject({ at: 1000, id: expect.stringMatching(/^rs-/) });
    expect(promptMark(facts, { hook_event_name: 'PreToolUse' })).toBeUndefined();
  });

  it("takes the daemon's answer, its error, or says no decision came in time", async () => {
    const answer = { stdout: '{}', exitCode: 0 };
    expect(await decideInTime(Promise.resolve({ id: 'x', result: answer }), 1000)).toEqual({ kind: 'answer', answer });
    const error = { code: 'internal' as const, message: 'broken' };
    expect(await decideInTime(Promise.resolve({ id: 'x', error }), 1000)).toEqual({ kind: 'failed', why: 'broken', error });
    expect(await decideInTime(new Promise(() => undefined), 20)).toEqual({ kind: 'late', why: 'no decision within 0.02 s' });
  });
});
