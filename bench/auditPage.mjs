#!/usr/bin/env node
// Benchmark: the audit page (`recap ui`) on a log of one job with 1M events over a month,
// made by the real decider: `recap ui`'s first answer (the daemon indexes the whole log),
// then the job page's data (the meter downsampled to the screen, with every trip and
// summary), a zoomed window, the slider's moment, the hover, the jobs table, and the page
// itself rendered in Chromium when it is installed.
//   node bench/auditPage.mjs [--quick] [--json] [--log=DIR]
// --log=DIR: the log is made once in DIR (its `log` folder) and copied for each run, so that
// two builds can be measured on the same log, one run after the other.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, ROOT as root, startDaemon, stopDaemon } from './daemon.mjs';
import { makeDecidedLog, PROMPT } from './decidedLog.mjs';

const dist = (p) => import(join(root, 'dist', p));
const { Client } = await dist('client/socketClient.js');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const kept = args.find((a) => a.startsWith('--log='))?.slice('--log='.length);
const SIZE = Number(process.env.RECAP_BENCH_EVENTS) || (quick ? 100_000 : 1_000_000);
const JOB = 'one-long-job';
const WIDTH = 1600;
const RUNS = 5;
const TARGETS = { jobPageMs: 1000, renderMs: 1000, atMs: 500 };
const CHROMIUM = process.env.RECAP_CHROMIUM ?? '/usr/bin/chromium';
/** The daemon's default spacing of snapshots (RECAP_SNAPSHOT_EVERY). */
const SNAPSHOT_EVERY = 10_000;
/** A month of work: one event every ~2.6 s. */
const STEP_MS = Math.round((30 * 24 * 3600 * 1000) / SIZE);

/** A threshold that trips every few hundred events, as a long working day's would. */
const THRESHOLD = 20_000;
/** One job's month, a snapshot every SNAPSHOT_EVERY events. */
async function makeLog(dir) {
  const start = Date.UTC(2026, 9, 1);
  const { types } = await makeDecidedLog(join(dir, 'log'), {
    size: SIZE,
    snapshotEvery: SNAPSHOT_EVERY,
    config: { TOKEN_THRESHOLD: THRESHOLD },
    jobOf: () => JOB,
    timeOf: (i) => start + i * STEP_MS,
    promptOf: (i) => PROMPT.repeat(1 + (i % 5)),
  });
  process.stderr.write(`events by type: ${JSON.stringify(types)}\n`);
  return { start, end: start + SIZE * STEP_MS };
}

/** The log made in `data`, or with --log copied from where it was made once (made there first). */
async function madeOrKept(data) {
  if (kept === undefined) return makeLog(data);
  if (!existsSync(join(kept, 'log'))) {
    mkdirSync(kept, { recursive: true });
    writeFileSync(join(kept, 'span.json'), JSON.stringify(await makeLog(kept)));
  }
  cpSync(join(kept, 'log'), join(data, 'log'), { recursive: true });
  return JSON.parse(readFileSync(join(kept, 'span.json'), 'utf8'));
}

function get(url, cookie) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    request(url, { headers: { cookie } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.once('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        else resolve({ ms: performance.now() - started, bytes });
      });
    })
      .once('error', reject)
      .end();
  });
}

/** The median and the slowest of RUNS requests, after one to warm up. */
async function timed(url, cookie) {
  await get(url, cookie);
  const runs = [];
  for (let i = 0; i < RUNS; i += 1) runs.push(await get(url, cookie));
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  return { medianMs: round(ms[Math.floor(ms.length / 2)]), maxMs: round(ms.at(-1)), kb: Math.round(runs[0].bytes / 1024) };
}

/** Follows `recap ui`'s link as a browser does: the session cookie it is given. */
function signIn(url) {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      const cookie = res.headers['set-cookie']?.[0];
      if (res.statusCode !== 303 || cookie === undefined) reject(new Error(`signing in answered ${res.statusCode}`));
      else resolve(cookie.split(';')[0]);
    })
      .once('error', reject)
      .end();
  });
}

const round = (ms) => Math.round(ms * 10) / 10;

async function rssMb(client) {
  const stats = await client.request('stats');
  return Math.round(stats.memory.rss / 2 ** 20);
}

/** The job page opened in Chromium, from navigation to the meter drawn (the page marks its chart with data-points). */
async function render(url) {
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM}` };
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
    // Signed in once (the cookie), then each load timed.
    await page.goto(url);
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) {
      const started = performance.now();
      await page.goto(`${new URL(url).origin}/#/job/${encodeURIComponent(JOB)}`);
      await page.reload();
      await page.waitForSelector('[data-points]:not([data-points="0"])', { timeout: 30_000 });
      runs.push(performance.now() - started);
    }
    runs.sort((a, b) => a - b);
    return { medianMs: round(runs[Math.floor(runs.length / 2)]), maxMs: round(runs.at(-1)) };
  } finally {
    await browser.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-ui-'));
let daemon;
try {
  const made = performance.now();
  const { start, end } = await madeOrKept(join(dir, 'data'));
  process.stderr.write(`made a log of ${SIZE.toLocaleString('en')} events in ${Math.round(performance.now() - made)} ms\n`);
  const env = benchEnv(dir);
  writeFileSync(env.RECAP_CONFIG, `TOKEN_THRESHOLD=${THRESHOLD}\nTOKEN_ENCODING=words\n`);
  daemon = await startDaemon(env);
  const client = await Client.connect(env.RECAP_SOCKET);
  const rssBefore = await rssMb(client);
  const indexStarted = performance.now();
  const { url } = await client.request('ui', {}, 120_000);
  const indexMs = Math.round(performance.now() - indexStarted);
  const rssAfter = await rssMb(client);
  const { origin } = new URL(url);
  const cookie = await signIn(url);
  const job = encodeURIComponent(JOB);
  const middle = Math.round((start + end) / 2);
  const row = {
    events: SIZE,
    indexMs,
    rssBeforeMb: rssBefore,
    rssAfterMb: rssAfter,
    jobPage: await timed(`${origin}/api/job?job=${job}&width=${WIDTH}`, cookie),
    // The most the page may ask for (8000 pixels): the baseline beside the screen's width.
    jobPageWidest: await timed(`${origin}/api/job?job=${job}&width=8000`, cookie),
    zoomHour: await timed(`${origin}/api/job?job=${job}&width=${WIDTH}&from=${middle}&to=${middle + 3_600_000}`, cookie),
    jobs: await timed(`${origin}/api/jobs`, cookie),
    at: await timed(`${origin}/api/job/at?job=${job}&time=${middle}`, cookie),
    moments: await timed(`${origin}/api/job/moments?job=${job}&from=${middle}&to=${middle + 60_000}`, cookie),
    render: await render(url).catch((error) => ({ error: error.message.split('\n')[0] })),
  };
  client.close();
  const result = { targets: TARGETS, rows: [row], loadavg: loadavg() };
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(`audit page on ${SIZE.toLocaleString('en')} events of one job (targets: job page data < ${TARGETS.jobPageMs} ms, render < ${TARGETS.renderMs} ms)`);
    console.log(JSON.stringify(row, null, 2));
  }
} finally {
  if (daemon) await stopDaemon(daemon);
  rmSync(dir, { recursive: true, force: true });
}
