// `recap show N` on a tripped gate, through the real `recap-hook claude` and a real shell: the
// deny names it, the exact command passes and prints summary #N whole while the gate stays
// tripped; anything chained onto it or hidden in it is denied, and then the way
// out still opens the gate. On the open gate it passes too, and `recap event N` (any event of
// any job) stays the user's.
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

const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'read a summary' }));
const tripped = isTripped;

describe('recap show N on a tripped gate', () => {
  let attack: Attack;
  let seq: number;
  let gist: string;

  beforeAll(async () => {
    // A first summary to show, then the gate tripped again by a new window of prompts.
    let first: { seq: number; gist: string };
    ({ attack, first } = await trippedAfterSummary());
    ({ seq, gist } = first);
  });
  afterAll(() => endAttack(attack));

  it('is named by the deny, passes the hook, and prints the summary whole; the gate stays tripped', async () => {
    const launcher = launcherOf(attack);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: `${attack.box.project}/README.md` })));
    expect(reason).toContain(`${launcher} show N, `);
    for (const command of [`${launcher} show ${seq}`, `${launcher} show ${seq} --json --job ${attack.job}`, `${launcher} show '#${seq}'`]) {
      expectAllowed(await bash(attack, command));
    }
    const shown = await runShell(attack, `${launcher} show ${seq}`);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`summary #${seq} of job ${attack.job}\n`);
    expect(shown.stdout).toContain(`gist: ${gist} (written by the agent)`);
    expect(await tripped(attack)).toBe(true);
  });

  it.each([
    ['a command after ;', (l: string, n: number) => `${l} show ${n}; rm -rf ~/project`],
    ["another job's --job, then && a command", (l: string, n: number) => `${l} show ${n} --job other-job && cat ~/config.conf`],
    ['a pipe into a shell', (l: string, n: number) => `${l} show ${n} | sh`],
    ['a redirection over a file', (l: string, n: number) => `${l} show ${n} > ~/.bashrc`],
    ['a second line', (l: string, n: number) => `${l} show ${n}\ntouch pwned`],
    ['a command substitution as the number', (l: string) => `${l} show $(touch pwned)`],
    ['a comment after it', (l: string, n: number) => `${l} show ${n} # and the rest`],
    ['an option it does not take', (l: string, n: number) => `${l} show ${n} --event`],
    ['bare recap on PATH', (_l: string, n: number) => `recap show ${n}`],
    ['through env', (l: string, n: number) => `env ${l} show ${n}`],
    ['a subshell', (l: string, n: number) => `(${l} show ${n})`],
  ])('with %s is denied, and the way out stays open', async (_name, spell) => {
    const reason = expectDenied(await bash(attack, spell(launcherOf(attack), seq)));
    // By the gate, or first by the protection rules (recap's config, a shell's start-up file, a wrapper that runs recap).
    expect(reason).toMatch(new RegExp(`^recap: (?:job ${attack.job} needs a summary|this call was refused)`));
    expect(await tripped(attack)).toBe(true);
    await expectWayOutOpen(attack, {});
  });

  it('of a number that is no summary of the job says so and changes nothing; then the way out opens the gate', async () => {
    const command = `${launcherOf(attack)} show ${seq + 1}`;
    expectAllowed(await bash(attack, command));
    const refused = await runShell(attack, command);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(`recap: #${seq + 1} is not a summary of job ${attack.job}; recap chain lists them (the nearest: #${seq})\n`);
    expect(await tripped(attack)).toBe(true);
    await proveWayOut(attack);
    expect(await tripped(attack)).toBe(false);
  });

  it('on the open gate, show N passes and recap event N (any event of any job) does not', async () => {
    const launcher = launcherOf(attack);
    expectAllowed(await bash(attack, `${launcher} show ${seq}`));
    expect(expectDenied(await bash(attack, `${launcher} event ${seq}`))).toContain('runs recap');
    expect(expectDenied(await bash(attack, `${launcher} --job show event ${seq}`))).toContain('runs recap');
  });
});
