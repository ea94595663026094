// `recap show N` on a real daemon: summary #N of the job whole (number, date, level, gist and
// who wrote it, tokens, hash, text, and the files its ## Files section named), its --json the
// summary as the log holds it, and a clear error for a number that is no summary of the job.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const JOB = 'shown';
const FILES = '## Files\n- read src/parser.ts:2-4 — where the parser starts reading the file\n- ref README.md — how the project is run';

type Entry = { seq: number; hash: string; prevHash: string; text: string; gist: string; refs: { mode: string; path: string; sha256: string; tokens: number }[] };

describe('recap show N', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let entry: Entry;
  let prompt: number;

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    mkdirSync(join(box.project, 'src'), { recursive: true });
    writeFileSync(join(box.project, 'src', 'parser.ts'), Array.from({ length: 8 }, (_, i) => `export const line${i} = ${i};`).join('\n'));
    writeFileSync(join(box.project, 'README.md'), '# Demo\n\nRun it with npm start.\n');
    const recorded = await runCli(box, ['record', '--job', JOB, '--json', '--text', prose(3)]);
    prompt = (JSON.parse(recorded.stdout) as { seq: number }).seq;
    const submitted = await runCli(box, ['submit', '--job', JOB], { input: `${goodSummary()}\n\n${FILES}\n` });
    expect(submitted.code, submitted.stderr).toBe(0);
    await runCli(box, ['record', '--job', 'elsewhere', '--text', prose(2)]);
    entry = (JSON.parse((await runCli(box, ['chain', '--job', JOB, '--json'])).stdout) as { entries: Entry[] }).entries[0]!;
  });
  afterAll(() => closeSandbox(box, daemon));

  it('prints the summary whole: number, date, level, gist and its author, tokens, hash, text and files', async () => {
    const shown = await runCli(box, ['show', String(entry.seq), '--job', JOB], { env: { TZ: 'UTC' } });
    expect(shown.code, shown.stderr).toBe(0);
    const [head, ...rest] = shown.stdout.split(`\n\n${entry.text.trimEnd()}\n\n`);
    expect(rest).toHaveLength(1);
    expect(head!.split('\n')).toEqual([
      `summary #${entry.seq} of job ${JOB}`,
      expect.stringMatching(/^date: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+00:00$/),
      'level: 0 (a summary)',
      `gist: ${entry.gist} (written by the agent)`,
      expect.stringMatching(new RegExp(`^tokens: \\d+, covering the interactions through #${prompt}$`)),
      `hash: ${entry.hash} (links to ${entry.prevHash.slice(0, 12)})`,
    ]);
    const [read, ref] = entry.refs;
    expect(rest[0]).toBe(
      'references (2):\n' +
        `- read src/parser.ts:2-4 — where the parser starts reading the file (sha256 ${read!.sha256.slice(0, 12)}, ${read!.tokens} tokens)\n` +
        `- ref README.md — how the project is run (sha256 ${ref!.sha256.slice(0, 12)}, ${ref!.tokens} tokens)\n`,
    );
    // #N, as the memory's index writes it, is the same summary.
    expect((await runCli(box, ['show', `#${entry.seq}`, '--job', JOB], { env: { TZ: 'UTC' } })).stdout).toBe(shown.stdout);
  });

  it('with --json gives the summary as the log holds it, with its gist and who wrote it', async () => {
    const shown = JSON.parse((await runCli(box, ['show', String(entry.seq), '--job', JOB, '--json'])).stdout) as { entry: Entry; gist: string; gistBy: string };
    expect(shown).toEqual({ entry, gist: entry.gist, gistBy: 'agent' });
  });

  it('is listed by recap chain under the same number', async () => {
    const chain = await runCli(box, ['chain', '--job', JOB]);
    expect(chain.stdout).toMatch(new RegExp(`^#${entry.seq}  .*  ${entry.hash.slice(0, 12)}  ${entry.gist.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`));
  });

  it('refuses a number that is no summary of the job, naming the nearest ones', async () => {
    for (const seq of [prompt, entry.seq + 1, 9999]) {
      const refused = await runCli(box, ['show', String(seq), '--job', JOB]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`recap: #${seq} is not a summary of job ${JOB}; recap chain lists them (the nearest: #${entry.seq})\n`);
    }
    // Another job's summary is not this job's.
    const other = await runCli(box, ['show', String(entry.seq), '--job', 'elsewhere', '--json']);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toEqual({
      error: { code: 'not_summary', message: `#${entry.seq} is not a summary of job elsewhere: the job has no summaries yet` },
    });
    const unknown = await runCli(box, ['show', String(entry.seq), '--job', 'shwn']);
    expect(unknown.stderr).toBe('recap: job "shwn" has no events; jobs with near names: shown\n');
  });

  it('refuses what is not a number, saying what it takes', async () => {
    for (const seq of ['abc', '0', '1.5', '#', '12x']) {
      const refused = await runCli(box, ['show', seq, '--job', JOB]);
      expect(refused.code, seq).toBe(1);
      expect(refused.stderr, seq).toBe(`recap: recap show takes a summary's number such as 12 or #12 (recap chain lists them), not ${JSON.stringify(seq)}\n`);
    }
  });
});
