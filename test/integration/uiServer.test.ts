// The audit page's server (`recap ui`) on a real daemon: who it lets in, and that its data
// tells what the log holds (the meter, trips, summaries, denials, the state at a moment),
// follows new events live, and stays small on a long job.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ON_FAKE_MACOS, RawClient, runCli, trackedSandboxes } from '../helpers/daemon.js';
import { prose } from '../helpers/text.js';
import { openUi, rounds } from '../helpers/uiPage.js';

const { newBox, start } = trackedSandboxes(afterEach);

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function get(url: string, options: { headers?: Record<string, string>; method?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

async function api<T>(ui: { origin: string; cookie: string }, path: string): Promise<T> {
  const answer = await get(`${ui.origin}${path}`, { headers: { cookie: ui.cookie } });
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body) as T;
}

type JobData = {
  threshold: number;
  now: { unsummarizedTokens: number; summaries: number; denials: number; tripped: boolean };
  span: { first: number; last: number };
  meter: { t: number[]; v: number[] };
  trips: { seq: number; reason: string }[];
  summaries: { seq: number; time: number; before: number; after: number; level: number }[];
  denials: { tool: string; count: number }[];
};

describe('recap ui: who gets in', () => {
  it('lets a browser in with the token, as an HttpOnly cookie, and no one without it', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const ui = await openUi(box);

    // The token in the address buys a session cookie (not the token), and the address loses it.
    const signIn = await get(ui.url);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/');
    const token = new URL(ui.url).searchParams.get('token')!;
    const [session] = signIn.headers['set-cookie'] as string[];
    expect(session).toMatch(/^recap_ui_\d+=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(session).not.toContain(token);
    expect(signIn.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await api<{ jobs: { job: string }[] }>(ui, '/api/jobs')).jobs.map((j) => j.job)).toEqual(['j']);
    // Signed in, the page and its script are served from the built bundle.
    const signedIn = { cookie: session!.split(';')[0]! };
    const index = await get(`${ui.origin}/`, { headers: signedIn });
    expect(index.status, index.body).toBe(200);
    expect(index.body).toContain('app.js');
    expect((await get(`${ui.origin}/assets/app.js`, { headers: signedIn })).status).toBe(200);

    const page = await get(`${ui.origin}/`);
    expect(page.status).toBe(401);
    expect(page.body).toContain('run `recap ui`');
    const data = await get(`${ui.origin}/api/jobs`);
    expect(data.status).toBe(401);
    expect(JSON.parse(data.body)).toEqual({ error: 'not signed in: open the link `recap ui` prints' });
    expect((await get(`${ui.origin}/?token=${'x'.repeat(43)}`)).status).toBe(401);
    expect((await get(`${ui.origin}/api/jobs`, { headers: { cookie: `${ui.cookie.split('=')[0]}=wrong` } })).status).toBe(401);
    // The token itself is no cookie: only a session the daemon made is.
    expect((await get(`${ui.origin}/api/jobs`, { headers: { cookie: `${ui.cookie.split('=')[0]}=${token}` } })).status).toBe(401);
  });

  it('makes a new token when the kept one is empty, rather than let an empty one in', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    mkdirSync(box.data, { recursive: true });
    writeFileSync(join(box.data, 'ui-token'), '\n');
    const ui = await openUi(box);
    const port = new URL(ui.url).port;
    expect((await get(`${ui.origin}/?token=`)).status).toBe(401);
    expect((await get(`${ui.origin}/api/jobs`, { headers: { cookie: `recap_ui_${port}=` } })).status).toBe(401);
    expect(readFileSync(join(box.data, 'ui-token'), 'utf8').trim()).toBe(new URL(ui.url).searchParams.get('token'));
  });

  it('refuses another Host, another Origin and anything but reading', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const ui = await openUi(box);
    const signedIn = { cookie: ui.cookie };
    // DNS rebinding: a page of another site resolving its name to 127.0.0.1.
    expect((await get(`${ui.origin}/api/jobs`, { headers: { ...signedIn, host: 'attacker.example' } })).status).toBe(403);
    expect((await get(`${ui.origin}/api/jobs`, { headers: { ...signedIn, origin: 'http://attacker.example' } })).status).toBe(403);
    expect((await get(`${ui.origin}/api/jobs`, { headers: { ...signedIn, origin: ui.origin } })).status).toBe(200);
    const posted = await get(`${ui.origin}/api/jobs`, { headers: signedIn, method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.body).toContain('read-only');
    expect((await get(`${ui.origin}/assets/..%2f..%2fpackage.json`, { headers: signedIn })).status).toBe(404);
    expect((await get(`${ui.origin}/assets/.hidden.js`, { headers: signedIn })).status).toBe(404);
  });

  it('listens again after a restart at the same address and token; sessions end with the daemon, the link signs in again', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const before = await openUi(box);
    expect((await openUi(box)).url).toBe(before.url);
    await daemon.stop();
    await start(box);
    // Listening again before anyone runs recap ui: an open page hears that its session ended.
    expect((await get(`${before.origin}/api/jobs`, { headers: { cookie: before.cookie } })).status).toBe(401);
    const after = await openUi(box);
    expect(after.url).toBe(before.url);
    expect((await api<{ jobs: unknown[] }>(after, '/api/jobs')).jobs).toHaveLength(1);
  });

  it('says what is wrong with a bad request', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const ui = await openUi(box);
    const ask = async (path: string) => {
      const answer = await get(`${ui.origin}${path}`, { headers: { cookie: ui.cookie } });
      return { status: answer.status, error: (JSON.parse(answer.body) as { error: string }).error };
    };
    expect(await ask('/api/job?job=nope')).toEqual({ status: 404, error: 'no job "nope" in the log; recap jobs lists them' });
    expect(await ask('/api/job')).toEqual({ status: 400, error: 'job is missing: /api/...?job=K' });
    expect(await ask('/api/job/at?job=j')).toEqual({ status: 400, error: 'time is missing: a time in milliseconds since the epoch' });
    expect(await ask('/api/job?job=j&from=soon')).toEqual({ status: 400, error: 'from is not a number: "soon"' });
    expect(await ask('/api/usage?bucket=year')).toEqual({ status: 400, error: 'bucket is one of: hour, day' });
  });
});

describe('recap ui: what the page is shown', () => {
  it("appends nothing to the log, and shows a project's own threshold", async () => {
    const box = newBox();
    await start(box);
    // A stricter project file applies at once, without approval.
    mkdirSync(join(box.project, '.recap'), { recursive: true });
    writeFileSync(join(box.project, '.recap', 'config.conf'), 'TOKEN_THRESHOLD=400\n');
    expect((await runCli(box, ['record', '--text', 'hello'], { cwd: box.project })).code).toBe(0);
    const [row] = (JSON.parse((await runCli(box, ['jobs', '--json'])).stdout) as { jobs: { job: string }[] }).jobs;
    const job = encodeURIComponent(row!.job);
    const ui = await openUi(box);
    const before = (await api<{ lastSeq: number }>(ui, '/api/jobs')).lastSeq;
    for (const path of [
      '/api/jobs',
      `/api/job?job=${job}`,
      `/api/chain?job=${job}`,
      `/api/verify?job=${job}`,
      `/api/quality?job=${job}`,
      `/api/job/at?job=${job}&time=${Date.now()}`,
    ]) {
      await api(ui, path);
    }
    const page = await api<{ lastSeq: number; threshold: number }>(ui, `/api/job?job=${job}`);
    expect(page.lastSeq).toBe(before);
    expect(page.threshold).toBe(400);
    expect((await api<{ jobs: { threshold: number }[] }>(ui, '/api/jobs')).jobs[0]!.threshold).toBe(400);
  });

  it('draws the meter as the log tells it: a trip, a denial and a drop to zero for each summary', async () => {
    const box = newBox();
    await start(box);
    await rounds(box, 'j', 3);
    await runCli(box, ['record', '--job', 'j', '--text', prose(3)]);
    const ui = await openUi(box);
    const job = await api<JobData>(ui, '/api/job?job=j');
    const status = JSON.parse((await runCli(box, ['status', '--job', 'j', '--json'])).stdout) as { unsummarizedTokens: number };

    expect(job.threshold).toBe(500);
    expect(job.trips.map((t) => t.reason)).toEqual(['threshold', 'threshold', 'threshold']);
    expect(job.summaries).toHaveLength(3);
    for (const summary of job.summaries) {
      expect(summary.before).toBeGreaterThanOrEqual(500);
      expect(summary.after).toBe(0);
    }
    expect(job.denials.map((d) => d.tool)).toEqual(['Read', 'Read', 'Read']);
    // The chain, whole or its newest entries only.
    const chain = await api<{ total: number; entries: { seq: number }[] }>(ui, '/api/chain?job=j');
    expect(chain.entries.map((e) => e.seq)).toEqual(job.summaries.map((s) => s.seq));
    expect(await api(ui, '/api/chain?job=j&last=2')).toMatchObject({ total: 3, entries: chain.entries.slice(1) });
    // The meter ends where the gate is, and never shows more than was reached.
    expect(job.meter.v.at(-1)).toBe(status.unsummarizedTokens);
    expect(job.now).toMatchObject({ unsummarizedTokens: status.unsummarizedTokens, summaries: 3, denials: 3, tripped: false });
    expect(job.meter.t).toEqual([...job.meter.t].sort((a, b) => a - b));

    // The slider's answer is `recap replay --at` that moment.
    const second = job.summaries[1]!;
    const at = await api<{ seq: number; status: unknown }>(ui, `/api/job/at?job=j&time=${second.time}`);
    const replayed = JSON.parse((await runCli(box, ['replay', '--job', 'j', '--json', '--at', new Date(second.time).toISOString()])).stdout) as {
      seq: number;
      jobs: unknown[];
    };
    expect(at).toEqual({ seq: replayed.seq, status: replayed.jobs[0] });

    // Hover: the interactions and the denial around the first trip.
    const trip = job.trips[0]!;
    const tripTime = job.summaries[0]!.time;
    const moments = await api<{ events: { type: string; seq: number; text?: string }[] }>(ui, `/api/job/moments?job=j&from=${job.span.first}&to=${tripTime}`);
    expect(moments.events.map((e) => e.type)).toContain('ToolDenied');
    expect(moments.events.some((e) => e.seq === trip.seq && e.type === 'GateTripped')).toBe(true);
    expect(moments.events.find((e) => e.type === 'InteractionRecorded')?.text).toMatch(/…$/);
  });

  it('shows a pause and its resume among the moments, with the process that ran each', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    await runCli(box, ['pause', '1h', '--job', 'j']);
    await runCli(box, ['resume', '--job', 'j']);
    const ui = await openUi(box);
    const job = await api<JobData>(ui, '/api/job?job=j');
    const moments = await api<{ events: { type: string; by?: string; until?: number }[] }>(ui, `/api/job/moments?job=j&from=${job.span.first}&to=${Date.now()}`);
    const paused = moments.events.find((e) => e.type === 'GatePaused');
    // On the fake macOS platform no peer is known: the pause was confirmed with a word, and the resume ran (it only makes recap stricter).
    expect(paused?.by).toMatch(ON_FAKE_MACOS ? /^process 0: confirmed at a terminal; / : /^process (\d+): \S+ \1 ← /);
    expect(paused?.until).toBeGreaterThan(Date.now());
    expect(moments.events.find((e) => e.type === 'GateResumed')?.by).toMatch(/^process \d+: /);
  });

  it('follows the log live: a record made through the socket is told on /api/live', async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const ui = await openUi(box);
    const live = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      request(`${ui.origin}/api/live`, { headers: { cookie: ui.cookie } }, resolve)
        .once('error', reject)
        .end();
    });
    expect(live.headers['content-type']).toBe('text/event-stream');
    let seen = '';
    const told = new Promise<string>((resolve) => {
      live.setEncoding('utf8').on('data', (chunk: string) => {
        seen += chunk;
        const match = /event: change\ndata: (.*)\n\n/.exec(seen);
        if (match) resolve(match[1]!);
      });
    });
    const client = await RawClient.connect(box.socket);
    await client.request({ id: 1, op: 'record', job: 'other', kind: 'prompt', text: 'a new job appears' });
    expect(JSON.parse(await told)).toMatchObject({ jobs: ['other'] });
    expect((await api<{ jobs: { job: string }[] }>(ui, '/api/jobs')).jobs.map((j) => j.job).sort()).toEqual(['j', 'other']);
    client.close();
    live.destroy();
  });

  it("sums the model's usage per agent and model, per hour and per day", async () => {
    const box = newBox();
    // A log with usage in it, as an export holds it: imported into the empty data folder.
    const hour = Date.UTC(2026, 10, 2, 10);
    const usage = (seq: number, minutes: number, model: string, input: number) => ({
      seq,
      type: 'UsageRecorded',
      version: 1,
      time: new Date(hour + minutes * 60_000).toISOString(),
      data: { job: 'j', session: 's', agent: 'claude', key: `m${seq}`, model, input, output: 10, cacheCreation: 0, cacheRead: 5, time: hour + minutes * 60_000 },
    });
    const lines = [{ format: 'recap-events', version: 1 }, usage(1, 5, 'opus', 100), usage(2, 50, 'opus', 200), usage(3, 70, 'opus', 300), usage(4, 80, 'haiku', 40)];
    const file = join(box.dir, 'usage.jsonl');
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const imported = await runCli(box, ['import', file]);
    expect(imported.code, imported.stderr).toBe(0);
    await start(box);
    const ui = await openUi(box);
    type Series = { agent: string; model: string; points: { time: number; input: number; output: number; cacheRead: number }[] };
    const hourly = (await api<{ series: Series[] }>(ui, '/api/usage?bucket=hour')).series;
    expect(hourly.find((s) => s.model === 'opus')!.points).toEqual([
      { time: hour, input: 300, output: 20, cacheCreation: 0, cacheRead: 10 },
      { time: hour + 3_600_000, input: 300, output: 10, cacheCreation: 0, cacheRead: 5 },
    ]);
    const daily = (await api<{ series: Series[] }>(ui, '/api/usage?bucket=day&job=j')).series;
    expect(daily.map((s) => [s.agent, s.model, s.points.map((p) => p.input)])).toEqual([
      ['claude', 'opus', [600]],
      ['claude', 'haiku', [40]],
    ]);
  });

  it("serves a job's memory quality signals as recap report --quality tells them, none before its first summary, to a signed-in browser only", async () => {
    const box = newBox();
    await start(box);
    await runCli(box, ['record', '--job', 'j', '--text', 'hello']);
    const ui = await openUi(box);
    expect(await api(ui, '/api/quality?job=j')).toEqual({ quality: null });
    expect((await get(`${ui.origin}/api/quality?job=j`)).status).toBe(401);

    await rounds(box, 'j', 2);
    const report = JSON.parse((await runCli(box, ['report', '--quality', '--json', '--job', 'j'])).stdout) as { quality: unknown[] };
    const { quality } = await api<{ quality: { summaries: unknown[] } }>(ui, '/api/quality?job=j');
    expect(quality.summaries).toHaveLength(2);
    expect(quality).toEqual(report.quality[0]);
  });

  it('sends a long job downsampled to the width asked, every peak and trip kept', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const replies = [];
    for (let i = 0; i < 400; i += 1) replies.push(client.request({ id: i, op: 'record', job: 'long', kind: 'prompt', text: `note ${i} ${'word '.repeat(i % 7)}` }));
    await Promise.all(replies);
    client.close();
    const status = JSON.parse((await runCli(box, ['status', '--job', 'long', '--json'])).stdout) as { unsummarizedTokens: number };
    const ui = await openUi(box);
    const small = await api<JobData>(ui, '/api/job?job=long&width=10');
    // At most the first, lowest, highest and last point of each of the 10 pixels.
    expect(small.meter.v.length).toBeLessThanOrEqual(40);
    expect(small.meter.v.at(-1)).toBe(status.unsummarizedTokens);
    expect(Math.max(...small.meter.v)).toBe(status.unsummarizedTokens);
    expect(small.trips).toHaveLength(1);
    // A window opens at the meter's level then: the first point is where the meter was.
    const wide = await api<JobData>(ui, '/api/job?job=long&width=8000');
    const at = wide.meter.t.findIndex((t) => t > wide.meter.t[0]!);
    const windowed = await api<JobData>(ui, `/api/job?job=long&width=8000&from=${wide.meter.t[at]!}`);
    expect(windowed.meter.t[0]).toBe(wide.meter.t[at]);
    expect(windowed.meter.v[0]).toBe(wide.meter.v[at - 1]);
  });
});
