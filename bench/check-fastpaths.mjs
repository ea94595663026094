#!/usr/bin/env node
// Checks of the fast paths that the test suite does not reach: snapshot texts,
// snapshots in pieces, batched reads, keys without BigInt, and `recap export` / `recap log
// --json` cutting lines out of the daemon's frames (against JSON.parse + JSON.stringify, on
// a log with holes, unicode and filters). Run after `npm run build`:
//   node bench/check-fastpaths.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { benchEnv, ROOT as root, startDaemon, stopDaemon } from './daemon.mjs';

const dist = (p) => import(join(root, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { decodeKey, encodeKey } = await dist('daemon/codec.js');
const { Projection } = await dist('daemon/projection.js');
const { decodeSnapshot, encodeSnapshot } = await dist('daemon/snapshot.js');
const { canonicalJson } = await dist('events/canonical.js');
const { initialJobState } = await dist('events/jobState.js');
const { eventLine } = await dist('daemon/eventLine.js');
const { exportHeader } = await dist('protocol/exportFormat.js');

const dirs = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'recap-check-'));
  dirs.push(dir);
  return dir;
};
let checks = 0;
const ok = (what) => {
  checks += 1;
  console.log(`ok ${checks} ${what}`);
};

try {
  // Keys: the same bytes as BigInt's writeBigUInt64BE, and back.
  for (const seq of [0, 1, 255, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 12345, Number.MAX_SAFE_INTEGER]) {
    const expected = Buffer.alloc(8);
    expected.writeBigUInt64BE(BigInt(seq));
    assert.deepEqual(encodeKey(seq), expected, `key of ${seq}`);
    assert.equal(decodeKey(new Uint8Array(expected)), seq);
  }
  ok('keys match writeBigUInt64BE');

  // Snapshot texts (pending interactions): one-byte, wide (emoji, a lone surrogate), empty.
  const projection = new Projection();
  const texts = ['plain', '', 'naïve café', 'emoji \u{1F600} and more', '', 'x'.repeat(5000)];
  for (let i = 0; i < 20_000; i += 1) texts.push(`${i} ${'abcdefghij'.repeat(20)}`);
  const job = initialJobState('job-1');
  texts.forEach((text, i) => {
    job.pending.push({ seq: i + 1, kind: 'prompt', text, tokens: 1, counted: true, time: i });
  });
  job.chain.push({ seq: texts.length + 1, level: 0, tokens: 1, coversThrough: 0, hash: 'h', time: 0 });
  projection.jobs.set('job-1', job);
  projection.jobs.set('job-2', initialJobState('job-2'));
  projection.lastSeq = texts.length + 1;
  const bytes = encodeSnapshot(projection);
  const restored = decodeSnapshot(bytes);
  assert.ok(restored);
  assert.equal(canonicalJson([...restored.jobs.entries()]), canonicalJson([...projection.jobs.entries()]));
  restored.jobs.get('job-1').pending.forEach((e, i) => {
    assert.equal(e.text, texts[i]);
  });
  assert.deepEqual(Object.keys(restored.jobs.get('job-1').pending[0]), Object.keys(job.pending[0]), 'key order kept');
  ok(`snapshot texts round-trip (${(bytes.length / 1e6).toFixed(1)} MB)`);
  assert.equal(decodeSnapshot(bytes.subarray(0, bytes.length - 100)), undefined);
  ok('a truncated snapshot is refused');

  // Snapshots in pieces.
  const dir = tempDir();
  let store = await EventStore.open(join(dir, 'log'));
  await store.append([{ type: 'ToolDenied', data: { job: 'j', tool: 'T', cause: 'gate', time: 1 } }]).durable;
  const big = Buffer.from(Array.from({ length: 3_500_000 }, (_, i) => i % 251));
  await store.writeSnapshot(1, Buffer.from('small'));
  await store.writeSnapshot(2, big);
  const read = async () => {
    const all = [];
    for await (const s of store.snapshots()) all.push(s);
    return all;
  };
  let found = await read();
  assert.deepEqual(
    found.map((s) => s.seq),
    [2, 1],
  );
  assert.ok(Buffer.from(found[0].value).equals(big));
  assert.equal(Buffer.from(found[1].value).toString(), 'small');
  ok('a snapshot of 3.5 MB is written in pieces and read back whole, newest first');
  await store.writeSnapshot(3, big);
  await store.close();
  let db = new Level(join(dir, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  let keys = await db.keys({ gte: Buffer.from([0xff]) }).all();
  assert.equal(keys.length, 8, 'two snapshots of 4 pieces kept, the oldest dropped');
  await db.del(keys.find((k) => k.length > 17 && k.readUInt32BE(13) === 3 && k.readUInt32BE(17) === 2)); // a middle piece of #3
  await db.close();
  store = await EventStore.open(join(dir, 'log'));
  found = await read();
  assert.deepEqual(
    found.map((s) => [s.seq, s.value === undefined]),
    [
      [3, true],
      [2, false],
    ],
  );
  await store.close();
  db = new Level(join(dir, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  keys = await db.keys({ gte: Buffer.from([0xff]) }).all();
  await db.del(keys.find((k) => k.length === 17 && k.readUInt32BE(13) === 2)); // the first piece of #2
  await db.close();
  store = await EventStore.open(join(dir, 'log'));
  found = await read();
  assert.deepEqual(
    found.map((s) => [s.seq, s.value === undefined]),
    [
      [3, true],
      [2, true],
    ],
  );
  await store.close();
  ok('a snapshot with a piece missing is reported unreadable, the others are not affected');

  // Batched reads: a bad event fails the read after every event before it; `limit`.
  const dir2 = tempDir();
  store = await EventStore.open(join(dir2, 'log'));
  await store.append(Array.from({ length: 2500 }, (_, i) => ({ type: 'ToolDenied', data: { job: 'j', tool: `T${i}`, cause: 'gate', time: i } }))).durable;
  await store.close();
  db = new Level(join(dir2, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.put(encodeKey(1700), Buffer.from([0xc1]));
  await db.close();
  store = await EventStore.open(join(dir2, 'log'));
  const seen = [];
  await assert.rejects(async () => {
    for await (const e of store.read()) seen.push(e.seq);
  }, /event #1700 cannot be decoded/);
  assert.equal(seen.length, 1699);
  assert.equal(seen.at(-1), 1699);
  let count = 0;
  for await (const batch of store.readBatches(10, Number.MAX_SAFE_INTEGER, { limit: 1234 })) count += batch.length;
  assert.equal(count, 1234);
  await store.close();
  ok('reads hand out every event before one that cannot be decoded, then fail; limit caps a read');

  // Export and log --json through a daemon: a log with holes, unicode, several jobs.
  const box = tempDir();
  const env = benchEnv(box, { RECAP_DATA_DIR: box, RECAP_HTTP_PORT: '0' });
  store = await EventStore.open(join(box, 'log'));
  const events = [];
  for (let i = 0; i < 12_000; i += 1) {
    const text = i % 7 === 0 ? `quote " backslash \\ newline \n tab \t unicode é \u{1F600} "}},{\\"seq\\":1 ${i}` : `prompt ${i}`;
    events.push({ type: 'InteractionRecorded', data: { job: `job-${i % 3}`, kind: 'prompt', text, tokens: 3, counted: true, time: 1_800_000_000_000 + i * 997 } });
  }
  await store.append(events).durable;
  await store.close();
  db = new Level(join(box, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  for (const hole of [3, 2600, 2601, 5000, 7777, 11_999]) await db.del(encodeKey(hole));
  await db.close();
  const expected = async (filter) => {
    const s = await EventStore.open(join(box, 'log'));
    const lines = [];
    for await (const e of s.readStored()) if (!filter || filter(e)) lines.push(`${JSON.stringify(JSON.parse(JSON.stringify(eventLine(e))))}\n`);
    await s.close();
    return lines.join('');
  };
  const daemon = await startDaemon(env);
  const cli = (args) =>
    new Promise((done, fail) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'recap.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.once('exit', (code) => (code === 0 ? done(Buffer.concat(out).toString()) : fail(new Error(`recap ${args.join(' ')} exited ${code}`))));
    });
  const got = {};
  try {
    got.export = await cli(['export']);
    got.exportJob = await cli(['export', '--job', 'job-1']);
    got.logJson = await cli(['log', '--json']);
    got.logJsonJob = await cli(['log', '--json', '--job', 'job-1']);
    got.logHuman = await cli(['log', '--job', 'job-2']);
  } finally {
    await stopDaemon(daemon);
  }
  // The daemon appended its ConfigApplied at start: it is in the log now.
  const wantAll = await expected();
  const wantJob = await expected((e) => e.data.job === 'job-1');
  assert.equal(got.export, `${exportHeader()}\n${wantAll}`);
  ok('recap export is byte-identical to JSON.parse + JSON.stringify of every event (holes, unicode)');
  assert.equal(got.exportJob, `${exportHeader()}\n${wantJob}`);
  ok('recap export --job');
  assert.equal(got.logJson, wantAll);
  assert.equal(got.logJsonJob, wantJob);
  ok('recap log --json, with and without a filter');
  assert.equal(got.logHuman.trim().split('\n').length, events.filter((e, i) => e.data.job === 'job-2' && ![3, 2600, 2601, 5000, 7777, 11_999].includes(i + 1)).length);
  ok('recap log (readable) pages through every event');
  console.log(`all ${checks} checks passed`);
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
