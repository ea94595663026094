// `recap decisions` on a tripped gate, through the real `recap-hook claude` and a real shell:
// the deny names it, the exact command passes and prints the log while the gate stays tripped;
// anything chained onto it or hidden in it is denied, and then the way out still opens the gate.
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
  trippedSandbox,
  type Attack,
} from '../helpers/gateAttack.js';

const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'read the decision log' }));
const tripped = isTripped;

describe('recap decisions on a tripped gate', () => {
  let attack: Attack;

  beforeAll(async () => {
    attack = await trippedSandbox();
    expect(await tripped(attack)).toBe(true);
  });
  afterAll(() => endAttack(attack));

  it('is named by the deny, passes the hook, and prints the log; the gate stays tripped', async () => {
    const launcher = launcherOf(attack);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: `${attack.box.project}/README.md` })));
    expect(reason).toContain(`${launcher} decisions`);
    for (const command of [`${launcher} decisions`, `${launcher} decisions --json --job ${attack.job}`]) expectAllowed(await bash(attack, command));
    const shown = await runShell(attack, `${launcher} decisions --json`);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ total: 0, decisions: [] });
    expect(await tripped(attack)).toBe(true);
  });

  it.each([
    ['a command after ;', (l: string) => `${l} decisions; rm -rf ~/project`],
    ["another job's --job, then && a command", (l: string) => `${l} decisions --job other-job && cat ~/config.conf`],
    ['a pipe into a shell', (l: string) => `${l} decisions | sh`],
    ['a redirection over a file', (l: string) => `${l} decisions > ~/.bashrc`],
    ['a second line', (l: string) => `${l} decisions\ntouch pwned`],
    ['an option it does not take', (l: string) => `${l} decisions --limit 5`],
    ['bare recap on PATH', () => 'recap decisions'],
    ['through env', (l: string) => `env ${l} decisions`],
    ['a subshell', (l: string) => `(${l} decisions)`],
  ])('with %s is denied, and the way out stays open', async (_name, spell) => {
    const reason = expectDenied(await bash(attack, spell(launcherOf(attack))));
    // By the gate, or first by the protection rules (recap's config, a shell's start-up file, a wrapper that runs recap).
    expect(reason).toMatch(new RegExp(`^recap: (?:job ${attack.job} needs a summary|this call was refused)`));
    expect(await tripped(attack)).toBe(true);
    await expectWayOutOpen(attack, {});
  });

  it('leaves the way out working: submit opens the gate, and decisions still passes on the open gate', async () => {
    await proveWayOut(attack);
    expect(await tripped(attack)).toBe(false);
    expectAllowed(await bash(attack, `${launcherOf(attack)} decisions`));
  });
});
