// Secrets never stored: a prompt holding an AWS key, a GitHub token and a private key, sent
// through the real recap-hook to the real daemon, is counted as said and stored with each
// secret replaced by its kind's marker; nothing recap shows or keeps on disk holds one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { closeSandbox, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { hookCommands, runHookCommand } from '../helpers/hookCommand.js';
import { promptWithSecrets, SECRETS } from '../helpers/secrets.js';
import { goodSummary, prose } from '../helpers/text.js';

/** A word of the prompt that is no secret: found in the data folder, it shows the search sees stored text. */
const PLAIN_WORD = 'Zanzibarquetzal';
const PROMPT = `${prose(3)} ${PLAIN_WORD}\n${promptWithSecrets()}`;
const VALUES = [SECRETS.awsAccessKey, SECRETS.awsSecretKey, SECRETS.githubToken, SECRETS.privateKey.split('\n')[1]!];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

describe('secrets in a prompt and a summary', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    const payload = { session_id: 'secrets-1', transcript_path: join(box.project, 't.jsonl'), cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: PROMPT };
    const run = await runHookCommand(box, hookCommands('claude')['recap-hook'], payload);
    expect(run.code).toBe(0);
  });
  afterAll(() => closeSandbox(box, daemon));

  it('counts the prompt as said, secrets and all', async () => {
    const count = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1.3 });
    const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedTokens: number };
    expect(status.unsummarizedTokens).toBe(count(PROMPT));
  });

  it('stores the prompt with a marker for each secret, and the kinds replaced', async () => {
    const exported = (await runCli(box, ['export'])).stdout;
    const recorded = exported
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { text?: string; secrets?: unknown } })
      .find((e) => e.type === 'InteractionRecorded')!;
    expect(recorded.data.text).toContain('[secret: AWS access key]');
    expect(recorded.data.text).toContain('[secret: GitHub token]');
    expect(recorded.data.text).toContain('[secret: private key]');
    expect(recorded.data.secrets).toEqual(
      expect.arrayContaining([
        { kind: 'AWS access key', count: 1 },
        { kind: 'AWS secret access key', count: 1 },
        { kind: 'GitHub token', count: 1 },
        { kind: 'private key', count: 1 },
      ]),
    );
  });

  it('accepts a summary that names a secret, storing it replaced, and says so', async () => {
    const summary = goodSummary().replace('## Current State\n', `## Current State\nThe CI token ${SECRETS.githubToken} was rotated. `);
    const result = await runCli(box, ['submit', '--json'], { input: summary });
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { entry: { text: string; secrets?: unknown } };
    expect(answer.entry.text).toContain('The CI token [secret: GitHub token] was rotated.');
    expect(answer.entry.secrets).toEqual([{ kind: 'GitHub token', count: 1 }]);
  });

  it('stores your amendment of a summary with its secrets replaced too', async () => {
    const [entry] = (JSON.parse((await runCli(box, ['chain', '--json'])).stdout) as { entries: { seq: number }[] }).entries;
    const amended = goodSummary().replace('## Current State\n', `## Current State\nThe deploy key ${SECRETS.githubToken} moved to the vault. `);
    const result = await runCli(box, ['amend', String(entry!.seq), '--json'], { input: amended });
    expect(result.code, result.stderr).toBe(0);
    const shown = (await runCli(box, ['show', String(entry!.seq)])).stdout;
    expect(shown).toContain('The deploy key [secret: GitHub token] moved to the vault.');
    expect(shown).not.toContain(SECRETS.githubToken);
  });

  it('shows no secret in recap export or recap log, nor in any file of the data folder', async () => {
    const shown = [(await runCli(box, ['export'])).stdout, (await runCli(box, ['log', '--json'])).stdout, (await runCli(box, ['log'])).stdout];
    for (const value of VALUES) for (const text of shown) expect(text).not.toContain(value);
    const bytes = filesUnder(box.data).map((file) => readFileSync(file));
    expect(bytes.some((b) => b.includes(PLAIN_WORD))).toBe(true);
    for (const value of VALUES) expect(bytes.filter((b) => b.includes(value))).toEqual([]);
  });

  it('recap doctor says how many secrets were replaced, by kind', async () => {
    const doctor = JSON.parse((await runCli(box, ['doctor', '--json'])).stdout) as { checks: { name: string; detail: string }[] };
    const check = doctor.checks.find((c) => c.name === 'secrets');
    expect(check?.detail).toMatch(/^5 replaced before storing/);
    expect(check?.detail).toContain('2 GitHub token');
  });
});
