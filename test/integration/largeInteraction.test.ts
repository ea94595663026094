// The largest prompt recap keeps (MAX_HOOK_PAYLOAD, cut from a larger one by the hook) is
// one event whose JSON, with its envelope, is larger than any request may be. Given one in
// the log of a real daemon, when the user backs up, lists or reads the log and the agent asks
// what to summarize, then every command answers in full: none waits for an answer it then
// drops, and the export holds the whole text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HOOK_PAYLOAD } from '../../src/common/frames.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { runHook } from '../helpers/gateAttack.js';

describe('given a prompt of the largest size recap keeps', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let seq: number;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    // One long word: the hook cuts it to MAX_HOOK_PAYLOAD, the counter reads it quickly.
    const prompt = 'a'.repeat(MAX_HOOK_PAYLOAD + 4096);
    const run = await runHook(box.env, { session_id: 'large', cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt });
    expect(run.exitCode, run.stderr).toBe(0);
    const log = await runCli(box, ['log', '--json']);
    expect(log.code, log.stderr).toBe(0);
    const recorded = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; type: string })
      .find((e) => e.type === 'InteractionRecorded');
    expect(recorded).toBeDefined();
    seq = recorded!.seq;
  }, 120_000);
  afterAll(async () => {
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it('when the user exports the log, then the file holds the whole text', async () => {
    const out = join(box.dir, 'export.jsonl');
    const exported = await runCli(box, ['export', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const line = readFileSync(out, 'utf8')
      .split('\n')
      .find((l) => l.includes('"InteractionRecorded"'));
    expect((JSON.parse(line!) as { data: { text: string } }).data.text.length).toBeGreaterThan(MAX_HOOK_PAYLOAD - 1024 * 1024);
  }, 120_000);

  it('when the user reads that event, and the agent asks for its context, then each answers whole', async () => {
    const event = await runCli(box, ['event', String(seq), '--json']);
    expect(event.code, event.stderr).toBe(0);
    expect((JSON.parse(event.stdout) as { data: { text: string } }).data.text.length).toBeGreaterThan(MAX_HOOK_PAYLOAD - 1024 * 1024);
    const context = await runCli(box, ['context']);
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toContain('a'.repeat(1000));
  }, 120_000);
});
