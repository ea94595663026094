// A tool call recap cannot read is never silence (silence is an allow): on a tripped gate a
// PreToolUse of an unexpected shape is denied with the way out in its reason, and with no
// job to ask it is denied too. Unknown hook events stay harmless, a valid way-out command
// with odd extra fields still passes, and on an open gate an odd call is not blocked.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackedSandboxes } from '../helpers/daemon.js';
import {
  expectAllowed,
  expectDenied,
  expectWayOutOpen,
  filledIn,
  payload,
  proveWayOut,
  runHook,
  submitCommandIn,
  toolCall,
  trippedGate,
  type Attack,
} from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterAll);

/** What an odd payload changes in a well-formed Read call of the attacking session. */
const ODD_SHAPES: [string, Record<string, unknown>][] = [
  ['no tool_name', { tool_name: undefined }],
  ['a tool_name that is a number', { tool_name: 42 }],
  ['a tool_name that is null', { tool_name: null }],
  ['an empty tool_name', { tool_name: '' }],
  ['a tool_name of 10,000 characters', { tool_name: 'Read'.repeat(2500) }],
  ['a tool_name that is an object', { tool_name: { name: 'Bash' } }],
  ['a relative cwd', { cwd: 'project/src' }],
  ['no cwd', { cwd: undefined }],
  ['a cwd that is a number', { cwd: 7 }],
  ['a cwd of 10,000 characters', { cwd: `/${'d'.repeat(10_000)}` }],
  ['a transcript_path that is a number', { transcript_path: 1 }],
  ['a transcript_path of 10,000 characters', { transcript_path: `/${'t'.repeat(10_000)}.jsonl` }],
  ['an agent_id that is an object', { agent_id: { id: 'sub' } }],
  ['a tool_name that is an array, and no tool_input', { tool_name: ['Bash'], tool_input: undefined }],
];

/** Well-shaped calls whose tool_input is not what the tool takes. */
const ODD_INPUTS: [string, string, unknown][] = [
  ['Bash with tool_input a string', 'Bash', 'recap status'],
  ['Bash with tool_input null', 'Bash', null],
  ['Bash with tool_input an array', 'Bash', ['recap', 'status']],
  ['Bash with a command that is a number', 'Bash', { command: 42 }],
  ['Bash with a command that is an array', 'Bash', { command: ['recap status'] }],
  ['Read with a file_path that is an object', 'Read', { file_path: { path: '/etc/passwd' } }],
  ['Write with a 300 kB content field and a 300 kB description', 'Write', { file_path: 'a.md', content: 'y'.repeat(300_000), description: 'z'.repeat(300_000) }],
];

describe('a tool call of an unexpected shape on a tripped gate', () => {
  let attack: Attack;
  beforeAll(async () => {
    attack = await trippedGate(newBox(), start);
  });

  const oddCall = (changes: Record<string, unknown>) => {
    const call = toolCall(attack, 'Read', { file_path: join(attack.box.project, 'a.ts') });
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete call[key];
      else call[key] = value;
    }
    return call;
  };

  it.each(ODD_SHAPES)('%s: denied with the way out in the reason, and the way out is open', async (_what, changes) => {
    const reason = expectDenied(await runHook(attack.box.env, oddCall(changes)));
    expect(reason).toContain('recap could not read this tool call');
    expect(reason).toContain(`job ${attack.job} `);
    expect(submitCommandIn(reason)).toContain('submit');
    await expectWayOutOpen(attack);
  });

  it.each(ODD_INPUTS)('%s: denied, and the way out is open', async (_what, tool, input) => {
    expect(expectDenied(await runHook(attack.box.env, toolCall(attack, tool, input)))).toContain(`job ${attack.job} `);
    await expectWayOutOpen(attack);
  });

  it('no cwd and a session recap has never seen: denied, since no job can be asked', async () => {
    const call = { ...oddCall({ cwd: undefined }), session_id: 'never-seen-session' };
    expect(expectDenied(await runHook(attack.box.env, call))).toContain('cannot tell which job');
    await expectWayOutOpen(attack);
  });

  it("a session_id of 10,000 characters in the project: judged on the project's job, denied", async () => {
    const call = { ...oddCall({}), session_id: 's'.repeat(10_000) };
    expect(expectDenied(await runHook(attack.box.env, call))).toContain(`job ${attack.job} `);
    await expectWayOutOpen(attack);
  });

  it.each(['Stop', 'Notification', 'PreToolUseX', 'pretooluse', 'SubagentStop'])('an unknown hook event %s, even with tool fields, stays harmless', async (event) => {
    const run = await runHook(attack.box.env, payload(attack, event, { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    await expectWayOutOpen(attack);
  });

  it('the way-out command with odd extra fields (tool_use_id a number, permission_mode an object) still passes, and opens the gate', async () => {
    const reason = expectDenied(await runHook(attack.box.env, oddCall({ tool_name: 7 })));
    const command = filledIn(submitCommandIn(reason));
    const odd = { tool_use_id: 5, permission_mode: { mode: 'x' }, effort: 'high', extra: 'q'.repeat(100_000) };
    expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'submit', timeout: 'soon' }, odd)));
    await proveWayOut(attack, { fields: odd });
  });
});

describe('a tool call of an unexpected shape on an open gate', () => {
  it('is judged as an unknown tool: allowed, never a brick', async () => {
    const box = newBox();
    const daemon = await start(box);
    const attack = { box, daemon, session: 'calm-session', job: '', shellEnv: box.env } as Attack;
    expectAllowed(await runHook(box.env, toolCall(attack, 'Read', { file_path: 'a.ts' })));
    const odd = toolCall(attack, 'Read', { file_path: 'a.ts' }, { tool_name: 42, cwd: 'relative' });
    expectAllowed(await runHook(box.env, odd));
  });
});
