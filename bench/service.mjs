#!/usr/bin/env node
// Benchmark: checks over the socket (1 client, and 64 clients pipelining), durable records
// (1 and 64 concurrent writers, with fsyncs per record), the HTTP hook round trip with
// keep-alive, and token counting (MB/s, and the words x 1.3 estimate's error).
//   node bench/service.mjs [--quick] [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const { Client } = await import(join(root, 'dist', 'client', 'socketClient.js'));
const { tokenCounter } = await import(join(root, 'dist', 'events', 'tokens.js'));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const TARGETS = { checksPerSecond64: 30_000, checkP99Ms64: 2, recordsPerSecond64: 5_000, recordsPerFsync64: 8, httpP99Ms: 2 };

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

const dir = mkdtempSync(join(tmpdir(), 'recap-bench-service-'));
mkdirSync(join(dir, 'project', '.git'), { recursive: true });
const env = {
  ...process.env,
  RECAP_SOCKET: join(dir, 'run', 'recapd.sock'),
  RECAP_DATA_DIR: join(dir, 'data'),
  RECAP_CONFIG: join(dir, 'config.conf'),
  RECAP_LOG_LEVEL: 'info',
  RECAP_HTTP_PORT: String(await freePort()),
};
const daemon = spawn(process.execPath, [join(root, 'bin', 'recap.js'), 'daemon'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((ready, fail) => {
  let log = '';
  daemon.stderr.on('data', (d) => {
    log += d;
    if (log.includes('recap daemon ready')) ready();
  });
  daemon.once('exit', () => fail(new Error(log)));
});

const connect = () => Client.connect(env.RECAP_SOCKET);
const checkFields = { job: 'bench', tool: 'Read', input: { file_path: join(dir, 'project', 'a.ts') } };

/** `clients` connections, each keeping `depth` requests in flight, for `total` requests in all. */
async function drive(clients, depth, total, op, fields) {
  const conns = await Promise.all(Array.from({ length: clients }, connect));
  const latencies = [];
  let issued = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    conns.map(async (c) => {
      const lane = async () => {
        while (issued < total) {
          issued += 1;
          const t = process.hrtime.bigint();
          await c.request(op, typeof fields === 'function' ? fields(issued) : fields);
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      };
      await Promise.all(Array.from({ length: depth }, lane));
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  for (const c of conns) c.close();
  return { perSecond: Math.round(total / seconds), p50Ms: round(percentile(latencies, 50), 3), p99Ms: round(percentile(latencies, 99), 3) };
}

async function stats() {
  const c = await connect();
  const s = await c.request('stats', {});
  c.close();
  return s;
}

const n = quick ? 1 : 4;
const results = {};
await drive(4, 4, 2000, 'check', checkFields); // warm-up
results.checks1 = await drive(1, 1, 3000 * n, 'check', checkFields);
results.checks64 = await drive(64, 4, 20_000 * n, 'check', checkFields);

const text = (i) => ({ job: `writer-${i % 64}`, kind: 'tool', text: `tool output ${i}` });
let before = await stats();
results.records1 = await drive(1, 1, 200 * n, 'record', text);
let after = await stats();
results.records1.recordsPerFsync = round((after.lastSeq - before.lastSeq) / Math.max(1, after.syncs - before.syncs));
before = after;
results.records64 = await drive(64, 1, 4000 * n, 'record', text);
after = await stats();
results.records64.recordsPerFsync = round((after.lastSeq - before.lastSeq) / Math.max(1, after.syncs - before.syncs));

// HTTP: enable the endpoint, then POST PreToolUse payloads over one keep-alive connection.
const httpInfo = await (async () => {
  const c = await connect();
  const r = await c.request('http', {});
  c.close();
  return r;
})();
const token = readFileSync(httpInfo.tokenFile, 'utf8').trim();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const payload = JSON.stringify({ hook_event_name: 'PreToolUse', cwd: join(dir, 'project'), session_id: 'bench', tool_name: 'Read', tool_input: { file_path: 'a.ts' } });
const post = () =>
  new Promise((done, fail) => {
    const req = request(httpInfo.url, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.once('end', done);
    });
    req.once('error', fail);
    req.end(payload);
  });
for (let i = 0; i < 200; i += 1) await post();
const httpLatencies = [];
for (let i = 0; i < 2000 * n; i += 1) {
  const t = process.hrtime.bigint();
  await post();
  httpLatencies.push(Number(process.hrtime.bigint() - t) / 1e6);
}
agent.destroy();
results.http = { p50Ms: round(percentile(httpLatencies, 50), 3), p99Ms: round(percentile(httpLatencies, 99), 3) };

daemon.kill('SIGTERM');
await new Promise((r) => daemon.once('exit', r));
rmSync(dir, { recursive: true, force: true });

// Token counting: throughput and the prototype's words x 1.3 estimate against exact counts.
const exact = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1.3 });
const estimate = await tokenCounter({ TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3 });
const samples = {
  prose: readFileSync(join(root, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, ''),
  code: readFileSync(join(root, 'dist', 'daemon', 'handler.js'), 'utf8') + readFileSync(join(root, 'dist', 'events', 'shellTokens.js'), 'utf8'),
  json: JSON.stringify(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages, null, 2).slice(0, 400_000),
};
results.tokens = {};
for (const [kind, sample] of Object.entries(samples)) {
  const start = process.hrtime.bigint();
  let counted = 0;
  const rounds = quick ? 2 : 6;
  for (let i = 0; i < rounds; i += 1) counted = exact(sample);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const estimated = estimate(sample);
  results.tokens[kind] = {
    mbPerSecond: round((Buffer.byteLength(sample) * rounds) / 1e6 / seconds),
    exactTokens: counted,
    wordsEstimate: estimated,
    estimateErrorPercent: round(((estimated - counted) / counted) * 100, 1),
  };
}

if (args.includes('--json')) console.log(JSON.stringify({ targets: TARGETS, results }));
else {
  const r = results;
  console.log(`checks, 1 client:        ${r.checks1.perSecond}/s  p50 ${r.checks1.p50Ms} ms  p99 ${r.checks1.p99Ms} ms`);
  console.log(`checks, 64 clients:      ${r.checks64.perSecond}/s  p50 ${r.checks64.p50Ms} ms  p99 ${r.checks64.p99Ms} ms  (target >= ${TARGETS.checksPerSecond64}/s, p99 < ${TARGETS.checkP99Ms64} ms)`);
  console.log(`durable records, 1:      ${r.records1.perSecond}/s  ${r.records1.recordsPerFsync} records per fsync`);
  console.log(`durable records, 64:     ${r.records64.perSecond}/s  ${r.records64.recordsPerFsync} records per fsync  (target >= ${TARGETS.recordsPerSecond64}/s, >= ${TARGETS.recordsPerFsync64} per fsync)`);
  console.log(`HTTP hook, keep-alive:   p50 ${r.http.p50Ms} ms  p99 ${r.http.p99Ms} ms  (target p99 < ${TARGETS.httpP99Ms} ms)`);
  for (const [kind, t] of Object.entries(r.tokens)) {
    console.log(`tokens, ${kind.padEnd(6)}         ${t.mbPerSecond} MB/s; words x 1.3 estimate off by ${t.estimateErrorPercent}% (${t.wordsEstimate} vs ${t.exactTokens})`);
  }
}
