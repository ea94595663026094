// The read commands as a user meets them: local times, --job everywhere (and a mistyped one
// caught), --type checked, --json failures, recap jobs, event, log -f, completion, --help.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RECAP, RawClient, runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

type Line = { seq: number; type: string; time: string; data: Record<string, unknown> };
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);

/** Job `alpha`: two prompts that trip the gate, an accepted summary; job `beta`: one prompt by codex. */
async function twoJobs(box: Sandbox): Promise<void> {
  await runCli(box, ['record', '--job', 'alpha', '--text', prose(15)]);
  await runCli(box, ['record', '--job', 'alpha', '--text', prose(15)]);
  await runCli(box, ['submit', '--job', 'alpha'], { input: goodSummary() });
  const client = await RawClient.connect(box.socket);
  await client.request({ id: 1, op: 'record', job: 'beta', kind: 'prompt', text: 'hello there', agent: 'codex' });
  client.close();
}

describe('times', () => {
  it('are shown in the local zone with its offset, and in UTC with --json', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    const kolkata = { TZ: 'Asia/Kolkata' };
    const human = (await runCli(box, ['log', '--job', 'alpha'], { env: kolkata })).stdout.trim().split('\n');
    expect(human[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30  #\d+  alpha  /);
    const chain = (await runCli(box, ['chain', '--job', 'alpha'], { env: kolkata })).stdout;
    expect(chain).toMatch(/^#\d+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30  level 0/);
    const json = jsonLines((await runCli(box, ['log', '--json', '--job', 'alpha'], { env: kolkata })).stdout);
    expect(json[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('are read as HH:MM, ISO 8601 or a span, saying which; impossible ones are errors naming the forms', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    const span = await runCli(box, ['log', '--since', '2h']);
    expect(span.stderr).toMatch(/^recap: --since 2h: 2 hours ago, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d$/m);
    expect(span.stdout).toContain('alpha');
    const clock = await runCli(box, ['log', '--until', '00:00'], { env: { TZ: 'UTC' } });
    expect(clock.stderr).toMatch(/--until 00:00: local time today, \d{4}-\d\d-\d\d 00:00:00 \+00:00/);
    const iso = await runCli(box, ['report', '--since', '2020-01-01T10:00'], { env: { TZ: 'UTC' } });
    expect(iso.stderr).toContain('--since 2020-01-01T10:00: ISO 8601, local time, 2020-01-01 10:00:00 +00:00');

    for (const [args, flag] of [
      [['log', '--since', '25:99'], '--since'],
      [['replay', '--at', '99:99'], '--at'],
      [['log', '--until', '2026-02-30'], '--until'],
      [['report', '--since', 'yesterday'], '--since'],
    ] as const) {
      const bad = await runCli(box, [...args]);
      expect(bad.code, args.join(' ')).toBe(1);
      expect(bad.stderr).toContain(`recap: ${flag}: cannot read the time`);
      expect(bad.stderr).toContain('HH:MM');
      expect(bad.stderr).toContain('ISO 8601');
      expect(bad.stderr).toContain('10m, 2h, 3d');
      expect(bad.stdout).toBe('');
    }
  });
});

describe('--job', () => {
  it('is honoured by verify, log, export and report, and RECAP_JOB stands for it', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    const all = JSON.parse((await runCli(box, ['verify', '--json'])).stdout);
    const alpha = JSON.parse((await runCli(box, ['verify', '--json', '--job', 'alpha'])).stdout);
    const beta = JSON.parse((await runCli(box, ['verify', '--json', '--job', 'beta'])).stdout);
    expect(all).toMatchObject({ ok: true, summaries: 1, jobs: 2 });
    expect(alpha).toMatchObject({ ok: true, summaries: 1, jobs: 1 });
    expect(beta).toMatchObject({ ok: true, summaries: 0, jobs: 1 });
    expect(alpha.events).toBeLessThan(all.events);
    expect((await runCli(box, ['verify', '--job', 'beta'])).stdout).toMatch(/^intact: \d+ events?, 0 summaries in job beta$/m);

    const onlyBeta = { env: { RECAP_JOB: 'beta' } };
    expect(jsonLines((await runCli(box, ['log', '--json'], onlyBeta)).stdout).map((l) => l.data.job)).toEqual(['beta']);
    const exported = jsonLines((await runCli(box, ['export'], onlyBeta)).stdout);
    // The header names the job; the end line counts its one event.
    expect(exported[0]).toEqual({ format: 'recap-events', version: 2, job: 'beta' });
    expect(exported.slice(1, -1).map((l) => l.data.job)).toEqual(['beta']);
    expect(exported.at(-1)).toEqual({ end: { events: 1 } });
    const report = JSON.parse((await runCli(box, ['report', '--json'], onlyBeta)).stdout);
    expect(report.jobs.map((j: { job: string }) => j.job)).toEqual(['beta']);
    const replay = JSON.parse((await runCli(box, ['replay', '--json', '--at', '9999'], onlyBeta)).stdout);
    expect(replay.jobs.map((j: { job: string }) => j.job)).toEqual(['beta']);
  });

  it('that has no events is said, naming the near jobs: an error for the audit, a notice for the gate', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    await runCli(box, ['record', '--job', 'alphabet-soup', '--text', 'x']);
    const said = 'recap: job "alpah" has no events; jobs with near names: alpha\n';
    for (const command of [['log'], ['export'], ['report'], ['verify'], ['replay', '--at', '1']]) {
      const result = await runCli(box, [...command, '--job', 'alpah']);
      expect(result.code, command[0]).toBe(1);
      expect(result.stderr, command[0]).toBe(said);
    }
    for (const command of ['status', 'context', 'chain']) {
      const result = await runCli(box, [command, '--job', 'alpah']);
      expect(result.code, command).toBe(0);
      expect(result.stderr, command).toBe(said);
    }
    const far = await runCli(box, ['status', '--job', 'zzzzzzzzzz']);
    expect(far.stderr).toBe('recap: job "zzzzzzzzzz" has no events; recap jobs lists every job\n');
    expect((await runCli(box, ['status', '--job', 'alpha'])).stderr).toBe('');
    const jobs = JSON.parse((await runCli(box, ['jobs', '--json'])).stdout);
    expect(jobs.jobs.map((j: { job: string }) => j.job).sort()).toEqual(['alpha', 'alphabet-soup', 'beta']);
  });
});

describe('input checked, failures as JSON', () => {
  it('refuses an unknown --type, listing the event types (the daemon too)', async () => {
    const box = newBox();
    await start(box);
    const bad = await runCli(box, ['log', '--type', 'Bogus']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Bogus');
    expect(bad.stderr).toMatch(/^recap: --type cannot be "Bogus": give one of InteractionRecorded, .*SummaryAccepted/);
    const client = await RawClient.connect(box.socket);
    const answer = await client.request({ id: 1, op: 'events', types: ['Bogus'] });
    client.close();
    expect(answer.error).toMatchObject({ code: 'bad_request' });
    expect(String((answer.error as { message: string }).message)).toContain('InteractionRecorded, GateTripped');
  });

  it('prints --version once', async () => {
    const box = newBox();
    const result = await runCli(box, ['--version']);
    expect(result).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('with --json, a failure is one JSON object on stdout, with exit code 1', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    const unknown = await runCli(box, ['log', '--json', '--job', 'alpah']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ error: { code: 'unknown_job', message: 'job "alpah" has no events; jobs with near names: alpha' } });
    const time = await runCli(box, ['--json', 'log', '--since', '25:99']);
    expect(time.code).toBe(1);
    expect(JSON.parse(time.stdout).error).toMatchObject({ code: 'usage', message: expect.stringContaining('--since: cannot read the time "25:99"') });
    const usage = await runCli(box, ['--json', 'nonsense']);
    expect(usage.code).toBe(1);
    expect(JSON.parse(usage.stdout).error.code).toBe('usage');
    expect(usage.stderr).toBe('');
  });

  it('export to a folder that does not exist, or import of a missing file or a folder, says which path and what to give', async () => {
    const box = newBox();
    const out = join(box.dir, 'no-such-folder', 'log.jsonl');
    expect(await runCli(box, ['export', '--out', out])).toMatchObject({
      code: 1,
      stderr: `recap: cannot write ${out} (ENOENT): give --out a file in a folder that exists and that you may write\n`,
    });
    const missing = join(box.dir, 'missing.jsonl');
    expect(await runCli(box, ['import', missing])).toMatchObject({ code: 1, stderr: `recap: cannot read ${missing} (ENOENT): give the path of a file recap export wrote\n` });
    expect(await runCli(box, ['import', box.dir])).toMatchObject({ code: 1, stderr: `recap: cannot read ${box.dir} (a folder): give the path of a file recap export wrote\n` });
  });
});

describe('recap jobs', () => {
  it('lists every job with its gate, tokens, summaries, last activity and agents; sorted; --json', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    await runCli(box, ['record', '--job', 'gamma', '--text', prose(30)]);
    const { jobs } = JSON.parse((await runCli(box, ['jobs', '--json', '--sort', 'name'])).stdout);
    expect(jobs.map((j: { job: string }) => j.job)).toEqual(['alpha', 'beta', 'gamma']);
    expect(jobs[0]).toMatchObject({ tripped: false, summaries: 1, unsummarizedTokens: 0 });
    expect(jobs[1]).toMatchObject({ tripped: false, summaries: 0, agents: ['codex'], unsummarizedInteractions: 1 });
    expect(jobs[2]).toMatchObject({ tripped: true, reason: 'threshold' });
    expect(jobs.every((j: { lastActivity: string }) => /Z$/.test(j.lastActivity))).toBe(true);
    const byTokens = JSON.parse((await runCli(box, ['jobs', '--json', '--sort', 'tokens'])).stdout).jobs;
    expect(byTokens[0].job).toBe('gamma');
    const newest = JSON.parse((await runCli(box, ['jobs', '--json'])).stdout).jobs;
    expect(newest[0].job).toBe('gamma');

    const human = (await runCli(box, ['jobs', '--sort', 'name'], { env: { TZ: 'Asia/Kolkata' } })).stdout.split('\n');
    // Jobs named with --job are no repository's: `-` in that column.
    expect(human[0]).toMatch(/^job +repository +gate +unsummarized +summaries +last activity +agents$/);
    expect(human[2]).toMatch(/^beta +- +open +\d+ tokens +0 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 +codex$/);
    expect(human[3]).toMatch(/^gamma +- +TRIPPED \(threshold\) +\d+ tokens +0 /);
    expect((await runCli(box, ['jobs', '--sort', 'size'])).code).toBe(1);
    expect(JSON.parse((await runCli(box, ['jobs', '--json', '--job', 'beta'])).stdout).jobs.map((j: { job: string }) => j.job)).toEqual(['beta']);
    expect((await runCli(box, ['jobs', '--job', 'bta'])).stderr).toBe('recap: job "bta" has no events; jobs with near names: beta\n');
    const jobless = await runCli(box, ['completion', 'bash', '--job', 'beta']);
    expect(jobless).toMatchObject({ code: 1, stderr: 'recap: recap completion is not about a job: leave out --job\n' });
    // Nor does their --help offer it; a job's command does.
    for (const command of [
      ['install', 'claude'],
      ['uninstall', 'claude'],
      ['import', 'x'],
      ['completion', 'bash'],
    ]) {
      const help = await runCli(box, [...command, '--help']);
      expect(help.code, command.join(' ')).toBe(0);
      expect(help.stdout, command.join(' ')).not.toContain('--job');
    }
    expect((await runCli(box, ['status', '--help'])).stdout).toContain('--job');
  });

  it('says there are none on an empty log', async () => {
    const box = newBox();
    await start(box);
    expect((await runCli(box, ['jobs'])).stdout).toBe('no jobs yet: recap counts a job from its first event\n');
  });

  it('keeps last activity and agents across a restart from a snapshot', async () => {
    const box = newBox();
    const env = { RECAP_SNAPSHOT_EVERY: '2' };
    const daemon = await start(box, env);
    await twoJobs(box);
    const before = (await runCli(box, ['jobs', '--json', '--sort', 'name'])).stdout;
    await daemon.stop();
    await start(box, env);
    expect((await runCli(box, ['jobs', '--json', '--sort', 'name'])).stdout).toBe(before);
  });
});

describe('recap event', () => {
  it('prints one event whole: a summary with its whole text', async () => {
    const box = newBox();
    await start(box);
    await twoJobs(box);
    const accepted = jsonLines((await runCli(box, ['log', '--json', '--type', 'SummaryAccepted'])).stdout)[0]!;
    const shown = await runCli(box, ['event', `#${accepted.seq}`], { env: { TZ: 'UTC' } });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^event #${accepted.seq}: SummaryAccepted \\(version 3\\)\ntime: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\+00:00\njob: alpha\n`));
    expect(shown.stdout).toContain(`text:\n${String(accepted.data.text)}`);
    expect(JSON.parse((await runCli(box, ['event', String(accepted.seq), '--json'])).stdout)).toEqual(accepted);
    const missing = await runCli(box, ['event', '9999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^recap: there is no event #9999: the log holds events #1 to #\d+\n$/);
    expect((await runCli(box, ['event', 'abc'])).stderr).toContain('recap event takes a sequence number such as 12');
    expect((await runCli(box, ['event', String(accepted.seq), '--job', 'beta'])).stderr).toBe(`recap: event #${accepted.seq} is not of job beta (it is of alpha)\n`);
  });
});

describe('recap log -f', () => {
  it('prints the matching events, then each new one as it is stored', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'alpha', '--text', 'first words']);
    const follower = spawn(process.execPath, [RECAP, 'log', '-f', '--json', '--job', 'alpha', '--type', 'InteractionRecorded'], { cwd: box.project, env: box.env });
    let out = '';
    const waiters: (() => void)[] = [];
    follower.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    const until = async (text: string) => {
      while (!out.includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    try {
      await until('first words');
      await runCli(box, ['record', '--job', 'beta', '--text', 'not this job']);
      await runCli(box, ['check', '--job', 'alpha', '--tool', 'Read']);
      await runCli(box, ['record', '--job', 'alpha', '--text', 'second words']);
      await until('second words');
      expect(jsonLines(out).map((l) => l.data.text)).toEqual(['first words', 'second words']);
    } finally {
      follower.kill();
    }
  });

  it('ends when the daemon stops, saying so and what to do, with no stack or --debug hint', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'first words']);
    const follower = spawn(process.execPath, [RECAP, 'log', '-f'], { cwd: box.project, env: box.env });
    let out = '';
    let err = '';
    const printed = new Promise<void>((resolve) =>
      follower.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('first words')) resolve();
      }),
    );
    follower.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => follower.once('exit', resolve));
    await printed;
    await daemon.stop();
    expect(await exited).toBe(1);
    expect(err).toBe('recap: the recap daemon closed the connection (it stopped or restarted); run the command again\n');
  });

  it('does not hold a stopping daemon: a waiting page is answered at once', async () => {
    const box = newBox();
    const daemon = await start(box);
    const client = await RawClient.connect(box.socket);
    client.send({ id: 1, op: 'events', fromSeq: 1, types: ['ToolDenied'], wait: 60_000 });
    // The request is in: a ping on the same connection is answered after it was read.
    await client.request({ id: 2, op: 'ping' });
    await daemon.stop();
    const frames = await client.received(2);
    expect(frames.find((f) => f.id === 1)).toMatchObject({ result: { events: [] } });
  });
});

describe('shell completion and help', () => {
  it('prints a completion script for bash, zsh and fish, answered by recap itself', async () => {
    const box = newBox();
    expect((await runCli(box, ['completion', 'bash'])).stdout).toContain('complete -o bashdefault -o default -F _recap_yargs_completions recap');
    expect((await runCli(box, ['completion', 'zsh'])).stdout).toContain('compdef _recap_yargs_completions recap');
    expect((await runCli(box, ['completion', 'fish'])).stdout).toContain("complete -f -c recap -a '(recap --get-yargs-completions");
    expect((await runCli(box, ['completion', 'tcsh'])).code).toBe(1);
    const words = (await runCli(box, ['--get-yargs-completions', 'recap', ''], { env: { SHELL: '/bin/bash' } })).stdout.split('\n');
    expect(words).toEqual(expect.arrayContaining(['jobs', 'show', 'log', 'completion']));
    const options = (await runCli(box, ['--get-yargs-completions', 'recap', 'log', '--'], { env: { SHELL: '/bin/bash' } })).stdout.split('\n');
    expect(options).toEqual(expect.arrayContaining(['--follow', '--since', '--type']));
  });

  it('--help fits on one screen: a line a command', async () => {
    const help = (await runCli(newBox(), ['--help'])).stdout.trimEnd().split('\n');
    // A screen of a terminal on a laptop: 50 rows, and every command's description on its own line.
    expect(help.length).toBeLessThanOrEqual(50);
    const commands = help.filter((line) => line.startsWith('  recap '));
    expect(help.slice(help.indexOf('Commands:') + 1, help.indexOf('Options:') - 1)).toEqual(commands);
    expect(help.every((line) => line.length <= 80)).toBe(true);
  });
});
