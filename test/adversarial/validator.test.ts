// The validator through the real daemon and hook: on a tripped gate, junk sent with the deny
// message's exact command is rejected (exit 2, every problem on stderr) and the gate holds;
// the previous window's summary sent again at the next trip is rejected too; then a real
// summary of the window opens the gate.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, trackedSandboxes } from '../helpers/daemon.js';
import { expectAllowed, expectDenied, filledIn, payload, proveWayOut, runHook, runShell, submitCommandIn, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';
import { readCase } from '../helpers/summaryCorpus.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** The deny message's submit command for a fresh Read, on the tripped gate. */
async function denyCommand(attack: Attack): Promise<string> {
  const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
  return submitCommandIn(reason);
}

/** The same command (its first line names recap as the deny does) carrying another body. */
function withBody(command: string, body: string): string {
  return [command.split('\n')[0], body, 'EOF'].join('\n');
}

/** Sends `body` with the deny's exact command, as the agent's Bash tool would, after the hook let it through. */
async function submitThroughGate(attack: Attack, body: string) {
  const command = withBody(await denyCommand(attack), body);
  expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'submit the summary' })));
  return runShell(attack, command);
}

async function expectRejected(attack: Attack, body: string, message: string): Promise<void> {
  const run = await submitThroughGate(attack, body);
  expect(run.exitCode, run.stdout).toBe(2);
  expect(run.stderr).toContain(message);
  // The gate holds: the next tool is still denied.
  expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
}

describe('the validator behind a tripped gate', () => {
  it('lorem ipsum in the template is rejected as filler, the gate holds, and the way out still works', async () => {
    const attack = await trippedGate(newBox(), start);
    await expectRejected(attack, readCase('junk/lorem-ipsum.md').summary, 'is filler text');
    await proveWayOut(attack);
  });

  it('base64 and hex dumps in the template are rejected as data, rows of punctuation and emoji as symbols; the gate holds and the way out still works', async () => {
    const attack = await trippedGate(newBox(), start);
    await expectRejected(attack, readCase('junk/noise-base64.md').summary, 'User Requests is data, not words');
    await expectRejected(attack, readCase('junk/noise-hex-dump.md').summary, 'Design Choices is data, not words');
    await expectRejected(attack, readCase('junk/noise-punctuation.md').summary, 'User Requests is punctuation and symbols, not words');
    await expectRejected(attack, readCase('junk/noise-emoji.md').summary, 'Current State is punctuation and symbols, not words');
    await proveWayOut(attack);
  });

  it('headings hidden in an HTML comment and a real summary nested under one heading are rejected', async () => {
    const attack = await trippedGate(newBox(), start);
    const real = filledIn(await denyCommand(attack))
      .split('\n')
      .slice(1, -1)
      .join('\n');
    await expectRejected(attack, real.replace('## Design Choices', '<!-- ## Design Choices -->'), 'missing section: Design Choices');
    const nested = real.replace('## Design Choices', '### Design Choices').replace('## Corrections & Feedback', '### Corrections & Feedback');
    await expectRejected(attack, nested, 'section Design Choices is nested inside Questions & Decisions');
    await proveWayOut(attack);
  });

  it("the previous window's accepted summary, resubmitted at the next trip, is rejected; a summary of the new window opens the gate", async () => {
    const attack = await trippedGate(newBox(), start);
    await proveWayOut(attack);
    const chain = await runCli(attack.box, ['chain', '--job', attack.job, '--json']);
    const previous = (JSON.parse(chain.stdout) as { entries: { seq: number; text: string }[] }).entries[0]!;

    // The next window: the user's new prompts, then the user asks for a summary now.
    const next = readCase('genuine/handoff-oncall.md');
    for (const prompt of next.interactions) {
      const run = await runHook(attack.box.env, payload(attack, 'UserPromptSubmit', { prompt }));
      expect(run.exitCode, run.stderr).toBe(0);
    }
    const trip = await runCli(attack.box, ['trip', '--job', attack.job]);
    expect(trip.code, trip.stderr).toBe(0);

    await expectRejected(attack, previous.text, `this summary repeats summary #${previous.seq}`);
    const accepted = await submitThroughGate(attack, `Gist: the on-call handoff, what broke overnight, what was decided and what comes next\n\n${next.summary}`);
    expect(accepted.exitCode, `${accepted.stdout}\n${accepted.stderr}`).toBe(0);
    expectAllowed(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'README.md') })));
  });
});
