// The gate end to end through the real daemon and the real CLI.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { RECAP, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

describe('the gate through the CLI', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let job: string;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    job = jobIdFor(box.project);
  });
  afterAll(async () => {
    await daemon.stop();
    removeSandbox(box);
  });

  it('records prompts under the threshold and keeps the gate open', async () => {
    const result = await runCli(box, ['record', '--kind', 'prompt', '--json'], { input: prose(10) });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.tokens).toBeGreaterThan(150);
    expect(answer.gate).toMatchObject({ job, tripped: false, threshold: 500 });
    expect((await runCli(box, ['check', '--tool', 'Read', '--input', '{"file_path":"/etc/hosts"}'])).code).toBe(0);
  });

  it('trips the gate when the unsummarized tokens reach the threshold', async () => {
    const result = await runCli(box, ['record', '--text', prose(20), '--json']);
    expect(JSON.parse(result.stdout).gate).toMatchObject({ tripped: true, reason: 'threshold' });
    const status = await runCli(box, ['status']);
    expect(status.stdout).toContain(`job ${job}: gate TRIPPED (threshold)`);
  });

  it('denies Read with a reason that says exactly what to do', async () => {
    const result = await runCli(box, ['check', '--tool', 'Read', '--input', '{"file_path":"/etc/hosts"}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`job ${job}`);
    expect(result.stderr).toMatch(/\d+ unsummarized tokens reached the threshold of 500/);
    expect(result.stderr).toContain("recap submit <<'EOF'");
    for (const section of ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State']) {
      expect(result.stderr).toContain(`## ${section}`);
    }
    expect(result.stderr).toContain('200 to 1000 tokens in total');
    expect(result.stderr).toContain('at least 50 tokens in each section');
    expect(result.stderr).toContain('The user asked for a parser');
  });

  it('denies a chained submit but allows the read-only commands, also by absolute path', async () => {
    const chained = await runCli(box, ['check', '--tool', 'Bash', '--input', JSON.stringify({ command: 'recap submit --file s.md; touch /tmp/x' })]);
    expect(chained.code).toBe(2);
    expect(chained.stderr).toContain('the shell operator ; is not allowed');
    const launcher = join(box.data, 'bin', 'recap');
    for (const command of [`${launcher} status`, `${launcher} context --json`, `'${launcher}' chain`]) {
      const allowed = await runCli(box, ['check', '--tool', 'Bash', '--input', JSON.stringify({ command })]);
      expect(allowed.code, command).toBe(0);
    }
    // recap found on PATH, or the package's bin run by whatever node PATH finds, could be a
    // file the agent wrote: only the launcher in the data folder is accepted.
    for (const command of ['recap status', `${RECAP} chain`]) {
      const denied = await runCli(box, ['check', '--tool', 'Bash', '--input', JSON.stringify({ command })]);
      expect(denied.code, command).toBe(2);
      // Either refusal (a PATH lookup, or running the package's own files) names the launcher.
      expect(denied.stderr, command).toContain(`${launcher} status`);
    }
  });

  it('shows the interactions to summarize and the template in recap context', async () => {
    const result = await runCli(box, ['context']);
    expect(result.stdout).toContain('needs a summary');
    expect(result.stdout).toContain('## Current State');
    expect(result.stdout).toContain('The user asked for a parser');
  });

  it('rejects a summary and lists every problem, one per line, with exit 2', async () => {
    const result = await runCli(box, ['submit'], { input: `## User Requests\n${prose(4)}\n\n## Current State\ntoo short` });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toContain('missing section: Questions & Decisions');
    expect(lines).toContain('missing section: Design Choices');
    expect(lines).toContain('missing section: Corrections & Feedback');
    expect(lines.some((l) => /^Current State has \d+ tokens; at least 50 needed$/.test(l))).toBe(true);
    expect(lines.some((l) => /^total \d+ tokens; must be 200 to 1000$/.test(l))).toBe(true);
    expect((await runCli(box, ['check', '--tool', 'Read'])).code).toBe(2);
  });

  it('accepts a valid summary, clears the gate and allows tools again', async () => {
    const result = await runCli(box, ['submit', '--json'], { input: goodSummary() });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.accepted).toBe(true);
    expect(answer.entry.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.entry.prevHash).toBe('0'.repeat(64));
    expect((await runCli(box, ['check', '--tool', 'Read'])).code).toBe(0);
    const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout);
    expect(status).toMatchObject({ tripped: false, unsummarizedTokens: 0, summaries: 1 });
  });

  it('reads a summary from a file and lists the chain', async () => {
    await runCli(box, ['record', '--text', prose(3)]);
    const file = `${box.dir}/summary.md`;
    await import('node:fs').then((fs) => fs.writeFileSync(file, goodSummary(undefined, 1))); // not the previous summary again
    const submitted = await runCli(box, ['submit', '--file', file]);
    expect(submitted.code).toBe(0);
    const chain = JSON.parse((await runCli(box, ['chain', '--json'])).stdout);
    expect(chain.entries).toHaveLength(2);
    // It names the new summary by the number recap show takes.
    const number = /^accepted: summary #(\d+), \d+ tokens, covering every interaction up to event #\d+; hash [0-9a-f]{12}$/m.exec(submitted.stdout)?.[1];
    expect(number).toBe(String(chain.entries[1].seq));
    expect((await runCli(box, ['show', number!])).stdout).toContain(chain.entries[1].hash.slice(0, 12));
    expect(chain.entries[1].prevHash).toBe(chain.entries[0].hash);
    const human = await runCli(box, ['chain']);
    expect(human.stdout.trim().split('\n')).toHaveLength(2);
    const memory = await runCli(box, ['context']);
    expect(memory.stdout).toContain('2 summaries');
  });

  it('reads a summary from stdin named as --file - (and -f -), as its help says', async () => {
    await runCli(box, ['record', '--text', prose(3)]);
    const submitted = await runCli(box, ['submit', '--file', '-'], { input: goodSummary(undefined, 2) });
    expect(submitted.code, submitted.stderr).toBe(0);
    await runCli(box, ['record', '--text', prose(3)]);
    const short = await runCli(box, ['submit', '-f', '-'], { input: goodSummary(undefined, 3) });
    expect(short.code, short.stderr).toBe(0);
    expect(JSON.parse((await runCli(box, ['chain', '--json'])).stdout).entries).toHaveLength(4);
  });

  it('keeps jobs apart: --job names another job with its own gate', async () => {
    const other = JSON.parse((await runCli(box, ['status', '--json', '--job', 'other-job'])).stdout);
    expect(other).toMatchObject({ job: 'other-job', summaries: 0, unsummarizedTokens: 0 });
  });

  it('reports a bad request clearly and exits 1 without a stack trace', async () => {
    const result = await runCli(box, ['check', '--tool', 'Read', '--input', '{not json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('recap: --input is not valid JSON: {not json\n');
    const empty = await runCli(box, ['record', '--text', '   ']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('the interaction text is empty');
    expect(empty.stderr).not.toContain('    at ');
  });
});
