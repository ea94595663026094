// The user's edits of memory against the agent: `recap amend` and `recap redact` are the
// user's commands, refused in the agent's shell (by the CLI and by the hook's protection
// rules) and to a program the agent runs that talks to recap's socket. After each refusal the
// log still holds the text, the gate is still tripped, and the way out still works.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, socketRequestCode, trackedSandboxes } from '../helpers/daemon.js';
import { expectDenied, proveWayOut, runHook, runShell, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** The first interaction the tripped job recorded: what the agent would like gone. */
async function firstPrompt(attack: Attack): Promise<{ seq: number; text: string }> {
  const log = await runCli(attack.box, ['log', '--json', '--type', 'InteractionRecorded', '--job', attack.job]);
  const first = log.stdout.trim().split('\n')[0]!;
  const event = JSON.parse(first) as { seq: number; data: { text: string } };
  return { seq: event.seq, text: event.data.text };
}

async function expectKept(attack: Attack, prompt: { seq: number; text: string }): Promise<void> {
  const event = JSON.parse((await runCli(attack.box, ['event', String(prompt.seq), '--json'])).stdout) as { data: { text: string; redacted?: true } };
  expect(event.data.text).toBe(prompt.text);
  expect(JSON.parse((await runCli(attack.box, ['status', '--json', '--job', attack.job])).stdout).tripped).toBe(true);
}

describe('recap amend and recap redact from the agent', () => {
  it("are refused in the agent's shell by the CLI and by the hook; the text stays; the way out works", async () => {
    const attack = await trippedGate(newBox(), start);
    const prompt = await firstPrompt(attack);
    for (const args of [
      ['redact', String(prompt.seq), '--yes'],
      ['amend', String(prompt.seq), '--file', '/dev/null'],
    ]) {
      const ran = await runCli(attack.box, args, { env: attack.shellEnv });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(new RegExp(`recap ${args[0]} is the user's to run`));
      const command = `recap ${args.join(' ')}`;
      expect(expectDenied(await runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'x' })))).toMatch(new RegExp(`recap ${args[0]}`));
    }
    await expectKept(attack, prompt);
    await proveWayOut(attack);
  });

  it('are refused to a program the agent runs that sends them to the socket; the text stays; the way out works', async () => {
    const attack = await trippedGate(newBox(), start);
    const prompt = await firstPrompt(attack);
    for (const request of [
      { op: 'redact', seq: prompt.seq, job: attack.job },
      { op: 'amend', seq: prompt.seq, job: attack.job, text: 'anything' },
    ]) {
      const ran = await runShell(attack, `node -e ${JSON.stringify(socketRequestCode({ id: 1, ...request }))}`);
      const answer = JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '{}') as { error?: { code: string; message: string } };
      expect(answer.error?.code, `${request.op}: ${ran.stdout}${ran.stderr}`).toBe('refused');
      expect(answer.error?.message).toMatch(new RegExp(`^recap ${request.op} is the user's to run, from their own terminal`));
    }
    await expectKept(attack, prompt);
    await proveWayOut(attack);
  });
});
