// A prompt recap-hook kept in its spool is recorded once, against the real daemon: not again
// when the request recap-hook sent also reached the daemon, nor when a daemon that recorded it
// died before it removed the file (the prompt's id is in the log, and in its snapshots).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { entryName, newPromptId } from '../../src/common/promptSpool.js';
import { RawClient, runCli, trackedSandboxes, type DaemonProcess, type LogLine, type Sandbox } from '../helpers/daemon.js';

const { newBox, start } = trackedSandboxes(afterEach);
const TAKEN = 'prompts kept while the daemon did not answer taken from the spool';

const claudePrompt = (box: Sandbox, prompt: string) => ({ session_id: 'spool-session', cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt });

/** Writes a spool entry as recap-hook does, under its final name. */
function spoolEntry(box: Sandbox, id: string, prompt: string, at = Date.now()): void {
  const dir = join(box.data, 'spool');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry = { version: 1, id, agent: 'claude', at, payload: claudePrompt(box, prompt) };
  writeFileSync(join(dir, entryName(entry)), JSON.stringify(entry), { mode: 0o600 });
}

/** Continues the (running) daemon, which then takes its spool; resolves with the pass's line. */
async function takeSpool(daemon: DaemonProcess): Promise<LogLine> {
  const before = daemon.lines.length;
  const taken = daemon.waitForLog((l) => l.msg.startsWith(TAKEN) && daemon.linesAfter(before).includes(l));
  daemon.child.kill('SIGCONT');
  return taken;
}

async function promptTexts(box: Sandbox): Promise<string[]> {
  const out = (await runCli(box, ['log', '--json', '--type', 'InteractionRecorded'])).stdout.trim();
  return out === '' ? [] : out.split('\n').map((line) => (JSON.parse(line) as { data: { text: string } }).data.text);
}

describe('a prompt id', () => {
  it('a hook request sent twice with the same prompt id is recorded once; the id is in the event', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const id = newPromptId();
    for (const n of [1, 2]) {
      const answer = await client.request({ id: n, op: 'hook', agent: 'claude', payload: claudePrompt(box, 'Add a --dry-run flag to the deploy script.'), promptId: id });
      expect(answer.result).toEqual({ stdout: '', exitCode: 0 });
    }
    client.close();
    const out = (await runCli(box, ['log', '--json', '--type', 'InteractionRecorded'])).stdout.trim().split('\n');
    expect(out.map((l) => (JSON.parse(l) as { data: { promptId?: string } }).data.promptId)).toEqual([id]);
  });

  it('is refused when it is not one recap-hook makes', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const answer = await client.request({ id: 1, op: 'hook', agent: 'claude', payload: claudePrompt(box, 'x'), promptId: '../../etc/passwd' });
    client.close();
    expect(answer.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('promptId') });
  });
});

describe('the spool, taken by the daemon', () => {
  it('skips a kept prompt the daemon already recorded from the request recap-hook sent', async () => {
    const box = newBox();
    const daemon = await start(box);
    const id = newPromptId();
    const prompt = 'Move the feature flags from env vars into flags.yaml.';
    const client = await RawClient.connect(box.socket);
    await client.request({ id: 1, op: 'hook', agent: 'claude', payload: claudePrompt(box, prompt), promptId: id });
    client.close();
    spoolEntry(box, id, prompt);
    expect(await takeSpool(daemon)).toMatchObject({ recorded: 0, skipped: 1 });
    expect(daemon.lines.some((l) => l.msg === 'skipping a spooled prompt: it was recorded already (its prompt id is in the log)')).toBe(true);
    expect(await promptTexts(box)).toEqual([prompt]);
    expect(readdirSync(join(box.data, 'spool'))).toEqual([]);
  });

  it('records kept prompts in the order they came, at the time they came', async () => {
    const box = newBox();
    const daemon = await start(box);
    const now = Date.now();
    spoolEntry(box, newPromptId(), 'second', now - 1000);
    spoolEntry(box, newPromptId(), 'first', now - 2000);
    spoolEntry(box, newPromptId(), 'third', now - 10);
    expect(await takeSpool(daemon)).toMatchObject({ recorded: 3, skipped: 0 });
    const out = (await runCli(box, ['log', '--json', '--type', 'InteractionRecorded'])).stdout.trim().split('\n');
    expect(out.map((l) => (JSON.parse(l) as { data: { text: string; time: number } }).data)).toEqual([
      expect.objectContaining({ text: 'first', time: now - 2000 }),
      expect.objectContaining({ text: 'second', time: now - 1000 }),
      expect.objectContaining({ text: 'third', time: now - 10 }),
    ]);
  });

  it.each([
    ['replayed from the log', '10000'],
    ['loaded from a snapshot', '1'],
  ])('a prompt recorded by a daemon that died before removing its file is not counted again by the next (%s)', async (_, every) => {
    const box = newBox();
    let daemon = await start(box, { RECAP_SNAPSHOT_EVERY: every });
    const id = newPromptId();
    spoolEntry(box, id, 'Drop the legacy v1 endpoints.');
    expect(await takeSpool(daemon)).toMatchObject({ recorded: 1 });
    // As if it had died between the record and the removal: the file is back, the daemon killed.
    spoolEntry(box, id, 'Drop the legacy v1 endpoints.');
    await daemon.stop('SIGKILL');
    daemon = await start(box, { RECAP_SNAPSHOT_EVERY: every });
    expect(daemon.lines.find((l) => l.msg.startsWith(TAKEN))).toMatchObject({ recorded: 0, skipped: 1 });
    expect(await promptTexts(box)).toEqual(['Drop the legacy v1 endpoints.']);
  });
});
