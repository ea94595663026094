// `recap search` and `recap timeline` on a tripped gate, through the real `recap-hook claude`
// and a real shell: the deny names them, the exact commands pass and answer while the gate
// stays tripped; anything chained onto them or hidden in the query is denied, and then the
// way out still opens the gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endAttack,
  expectAllowed,
  expectDenied,
  expectWayOutOpen,
  launcherOf,
  proveWayOut,
  runHook,
  runShell,
  toolCall,
  isTripped,
  trippedAfterSummary,
  type Attack,
} from '../helpers/gateAttack.js';

const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'look up a summary' }));
const tripped = isTripped;

describe('recap search and timeline on a tripped gate', () => {
  let attack: Attack;
  let seq: number;
  let word: string;

  beforeAll(async () => {
    // A first summary to find, then the gate tripped again by a new window of prompts.
    let first: { seq: number; gist: string };
    ({ attack, first } = await trippedAfterSummary());
    seq = first.seq;
    word = first.gist.split(/\W+/).find((w) => w.length >= 5)!;
  });
  afterAll(() => endAttack(attack));

  it('are named by the deny, pass the hook and answer; the gate stays tripped', async () => {
    const launcher = launcherOf(attack);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: `${attack.box.project}/README.md` })));
    expect(reason).toContain(`${launcher} search QUERY and ${launcher} timeline may run`);
    const search = `${launcher} search '${word}' --json`;
    expectAllowed(await bash(attack, search));
    const found = await runShell(attack, search);
    expect(found.exitCode, found.stderr).toBe(0);
    expect((JSON.parse(found.stdout) as { hits: { seq: number }[] }).hits.map((h) => h.seq)).toContain(seq);
    const timeline = `${launcher} timeline ${seq} --json`;
    expectAllowed(await bash(attack, timeline));
    const around = await runShell(attack, timeline);
    expect((JSON.parse(around.stdout) as { entries: { seq: number }[] }).entries.map((e) => e.seq)).toEqual([seq]);
    expect(await tripped(attack)).toBe(true);
  });

  it.each([
    ['a command after ;', (l: string) => `${l} search refunds; touch pwned`],
    ['a command substitution in the query', (l: string) => `${l} search "$(touch pwned)"`],
    ['backticks in the query', (l: string) => `${l} search "\`touch pwned\`"`],
    ['a pipe into a shell', (l: string) => `${l} search refunds | sh`],
    ['a second line', (l: string) => `${l} timeline\ntouch pwned`],
    ['an option it does not take', (l: string) => `${l} search refunds --exec sh`],
    ['bare recap on PATH', () => 'recap search refunds'],
  ])('with %s is denied, and the way out stays open', async (_name, spell) => {
    const reason = expectDenied(await bash(attack, spell(launcherOf(attack))));
    expect(reason).toMatch(new RegExp(`^recap: (?:job ${attack.job} needs a summary|this call was refused)`));
    expect(await tripped(attack)).toBe(true);
    await expectWayOutOpen(attack, {});
  });

  it('after a search, a good summary still opens the gate', async () => {
    expectAllowed(await bash(attack, `${launcherOf(attack)} search '${word}'`));
    await proveWayOut(attack);
    expect(await tripped(attack)).toBe(false);
  });
});
