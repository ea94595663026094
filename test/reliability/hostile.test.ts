// Hostile input at the socket and at the HTTP endpoint: random and mutated frames, bad
// lengths, invalid UTF-8, JSON of the wrong shape, unknown ops, huge strings, deep nesting,
// half-sent frames, thousands of idle connections. The daemon answers with errors, keeps
// serving a well-behaved client, and its memory stays bounded.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_FRAME, encodeFrame } from '../../src/common/frames.js';
import { lengthPrefixed, RawClient, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { call, connectMany, enableHttp, FULL, pick, rssKb, sleep } from './harness.js';

const FRAMES = pick(400, 10_000);
const IDLE = pick(1000, 4000);

/** Sends raw bytes on a fresh connection; resolves with what came back once it closed or went quiet. */
async function throwAt(path: string, bytes: Buffer, quietMs = 150, maxMs = 2000): Promise<{ frames: Record<string, unknown>[]; closed: boolean }> {
  const client = await RawClient.connect(path);
  client.sendBytes(bytes);
  let closed = false;
  void client.closed.then(() => (closed = true));
  let seen = -1;
  for (let waited = 0; waited < maxMs; waited += quietMs) {
    await sleep(quietMs);
    if (closed || (client.frames.length > 0 && client.frames.length === seen)) break;
    seen = client.frames.length;
  }
  client.socket.destroy();
  return { frames: client.frames, closed };
}

const good = (op: string, fields: Record<string, unknown> = {}) => encodeFrame({ id: 1, op, ...fields });

/** One random hostile frame: mutations of a valid one, random bytes, bad lengths. */
function hostileFrame(i: number): Buffer {
  const valid = good('check', { job: 'hostile', tool: 'Read', input: { file_path: '/etc/hosts' } });
  switch (i % 8) {
    case 0:
      return randomBytes(1 + Math.floor(Math.random() * 64));
    case 1: {
      const copy = Buffer.from(valid);
      for (let k = 0; k < 3; k += 1) copy[4 + Math.floor(Math.random() * (copy.length - 4))] = Math.floor(Math.random() * 256);
      return copy;
    }
    case 2:
      return lengthPrefixed(Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x7b]));
    case 3:
      return lengthPrefixed(Buffer.from(JSON.stringify([null, 1, 'x', true, { op: 'ping' }][i % 5])));
    case 4:
      return encodeFrame({ id: i, op: `nope-${i}` });
    case 5: {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(0x7fffffff - i, 0);
      return header;
    }
    case 6:
      return encodeFrame({ id: i, op: 'record', job: 'x'.repeat(300), kind: 'prompt', text: 'y' });
    default:
      return encodeFrame({ id: { nested: i }, op: 7 });
  }
}

describe('hostile input at the socket', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let well: RawClient;
  const figures = { frames: 0, errorsAnswered: 0, closed: 0, idleConnections: 0, rssStartKb: 0, rssEndKb: 0 };

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    well = await RawClient.connect(box.socket);
    await call(well, 'ping');
    figures.rssStartKb = rssKb(daemon.child.pid!);
  });
  afterAll(async () => {
    well?.close();
    // SIGKILL: a stuck one-word record (below) would hold up a graceful stop.
    await daemon?.stop('SIGKILL');
    removeSandbox(box);
    console.log(`[hostile ${FULL ? 'full' : 'short'}] ${JSON.stringify(figures)}`);
  });

  const stillServes = async () => expect((await call(well, 'ping', {}, 3000)).result).toMatchObject({ version: expect.any(String) });

  it('answers each kind of bad frame with a clear error', async () => {
    const cases: [string, Buffer, string][] = [
      ['invalid UTF-8', lengthPrefixed(Buffer.from([0xc3, 0x28, 0xa0, 0xa1])), 'invalid_frame'],
      ['not JSON', lengthPrefixed(Buffer.from('{"id":1,')), 'invalid_frame'],
      ['an array', lengthPrefixed(Buffer.from('[1,2,3]')), 'bad_request'],
      ['a number', lengthPrefixed(Buffer.from('42')), 'bad_request'],
      ['null', lengthPrefixed(Buffer.from('null')), 'bad_request'],
      ['an empty frame', lengthPrefixed(Buffer.alloc(0)), 'invalid_frame'],
      ['no op', good('ping').subarray(0, 0).length === 0 ? encodeFrame({ id: 1 }) : Buffer.alloc(0), 'bad_request'],
      ['an unknown op', encodeFrame({ id: 1, op: 'format_disk' }), 'unknown_op'],
      ['an op that is an object', encodeFrame({ id: 1, op: { toString: 'ping' } }), 'bad_request'],
      ['__proto__ as op', encodeFrame({ id: 1, op: '__proto__' }), 'unknown_op'],
      ['fields of the wrong type', encodeFrame({ id: 1, op: 'record', job: 5, kind: [], text: null }), 'bad_request'],
      ['a huge job name', encodeFrame({ id: 1, op: 'status', job: 'j'.repeat(900_000) }), 'bad_request'],
      ['a huge id', encodeFrame({ id: 'i'.repeat(500_000), op: 'ping' }), 'bad_request'],
    ];
    for (const [what, bytes, code] of cases) {
      const { frames } = await throwAt(box.socket, bytes);
      expect(frames[0]?.error, what).toMatchObject({ code, message: expect.any(String) });
    }
    await stillServes();
  });

  it('closes the connection on an oversized length and on a frame just over the limit', async () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(0xffffffff, 0);
    const justOver = Buffer.alloc(4);
    justOver.writeUInt32BE(DEFAULT_MAX_FRAME + 1, 0);
    for (const bytes of [header, Buffer.concat([justOver, encodeFrame({ id: 1, op: 'ping' })])]) {
      const { frames, closed } = await throwAt(box.socket, bytes);
      expect(frames[0]?.error).toMatchObject({ code: 'frame_too_large' });
      expect(closed).toBe(true);
    }
    await stillServes();
  });

  it('survives deep nesting', async () => {
    const depth = 200_000;
    const nested = Buffer.from(`{"id":1,"op":"check","job":"hostile","tool":"Read","input":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const { frames } = await throwAt(box.socket, lengthPrefixed(nested), 500);
    expect(frames.length).toBeGreaterThan(0);
    const hook = Buffer.from(`{"id":2,"op":"hook","agent":"claude","payload":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`);
    expect((await throwAt(box.socket, lengthPrefixed(hook), 500)).frames.length).toBeGreaterThan(0);
    await stillServes();
  });

  it(`takes ${FRAMES} random and mutated frames and keeps serving`, { timeout: pick(30_000, 300_000) }, async () => {
    for (let i = 0; i < FRAMES; i += 50) {
      const results = await Promise.all(Array.from({ length: Math.min(50, FRAMES - i) }, (_, k) => throwAt(box.socket, hostileFrame(i + k), 50, 300)));
      for (const r of results) {
        figures.frames += 1;
        if (r.frames.some((f) => 'error' in f)) figures.errorsAnswered += 1;
        if (r.closed) figures.closed += 1;
      }
      if (i % 200 === 0) await stillServes();
    }
    await stillServes();
    expect(daemon.child.exitCode).toBeNull();
  });

  it(`holds ${IDLE} idle and half-sent connections and keeps serving`, { timeout: pick(30_000, 120_000) }, async () => {
    const idle = await connectMany(box.socket, IDLE);
    figures.idleConnections = idle.length;
    idle.forEach((c, i) => {
      if (i % 2 === 0) c.sendBytes(Buffer.from([0, 0, 1, 0, 0x7b]));
    });
    await stillServes();
    for (let k = 0; k < 10; k += 1) {
      expect((await call(well, 'check', { job: 'hostile', tool: 'Read', input: { file_path: '/etc/hosts' } })).result).toMatchObject({ allow: true });
    }
    for (const c of idle) c.socket.destroy();
  });

  it('keeps its memory bounded', async () => {
    await sleep(500);
    figures.rssEndKb = rssKb(daemon.child.pid!);
    expect(figures.rssEndKb - figures.rssStartKb).toBeLessThan(200 * 1024);
  });

  it('answers ping promptly while a 300 KB one-word record is counted', { timeout: 20_000 }, async () => {
    const attacker = await RawClient.connect(box.socket);
    attacker.send({ id: 'dos', op: 'record', job: 'hostile-dos', kind: 'prompt', text: 'x'.repeat(300_000) });
    await sleep(100);
    try {
      expect((await call(well, 'ping', {}, 2000)).result).toBeDefined();
    } finally {
      attacker.socket.destroy();
    }
  });
});

describe('the socket limits from the environment', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box, { RECAP_IDLE_TIMEOUT_MS: '800', RECAP_FRAME_TIMEOUT_MS: '800' });
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
  });

  it('closes a half-sent frame after RECAP_FRAME_TIMEOUT_MS', async () => {
    const client = await RawClient.connect(box.socket);
    client.sendBytes(Buffer.from([0, 0, 0, 50, 0x7b, 0x22]));
    const closed = await Promise.race([client.closed.then(() => true), sleep(3000).then(() => false)]);
    client.socket.destroy();
    expect(closed).toBe(true);
  });

  it('closes an idle connection after RECAP_IDLE_TIMEOUT_MS', async () => {
    const client = await RawClient.connect(box.socket);
    const closed = await Promise.race([client.closed.then(() => true), sleep(3000).then(() => false)]);
    client.socket.destroy();
    expect(closed).toBe(true);
  });

  it.runIf(FULL)('closes a half-sent frame after the default 10 s', { timeout: 20_000 }, async () => {
    const client = await RawClient.connect(box.socket);
    client.sendBytes(Buffer.from([0, 0, 0, 50, 0x7b]));
    const closed = await Promise.race([client.closed.then(() => true), sleep(13_000).then(() => false)]);
    client.socket.destroy();
    expect(closed).toBe(true);
  });
});

function post(port: number, body: string | Buffer, headers: Record<string, string>): Promise<{ status?: number; error?: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/hooks/claude', headers, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode! }));
    });
    req.once('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body);
  });
}

describe('hostile input at the HTTP endpoint', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let port: number;
  let token: string;
  const bodies = pick(200, 2000);

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box, { RECAP_HTTP_PORT: '0' });
    ({ port, token } = await enableHttp(box.socket));
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
  });

  it(`answers ${bodies} random and malformed bodies with a status, and keeps serving`, { timeout: pick(30_000, 300_000) }, async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const statuses = new Map<number | string, number>();
    const cases = (i: number): string | Buffer => {
      switch (i % 6) {
        case 0:
          return randomBytes(1 + (i % 300));
        case 1:
          return '{"hook_event_name":';
        case 2:
          return JSON.stringify([1, 2, { hook_event_name: 'PreToolUse' }]);
        case 3:
          return JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: { x: 1 }, tool_input: 'z'.repeat(1000), cwd: 5 });
        case 4:
          return `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
        default:
          return JSON.stringify({ hook_event_name: 'Nope', session_id: 'x'.repeat(10_000) });
      }
    };
    for (let i = 0; i < bodies; i += 10) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, k) => post(port, cases(i + k), auth)));
      for (const r of results) statuses.set(r.status ?? r.error!, (statuses.get(r.status ?? r.error!) ?? 0) + 1);
    }
    // 2 MiB of blanks is no hook input: a tool call recap cannot read is denied, with a 200.
    const big = await post(port, Buffer.alloc(2 * 1024 * 1024, 0x20), auth);
    expect(big.status).toBe(200);
    console.log(`[hostile http] ${JSON.stringify(Object.fromEntries(statuses))}`);
    for (const key of statuses.keys()) expect(typeof key === 'number' && key >= 200 && key < 600, `status ${key}`).toBe(true);
    const ok = await post(
      port,
      JSON.stringify({ session_id: 's', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/etc/hosts' } }),
      auth,
    );
    expect(ok.status).toBe(200);
    expect(daemon.child.exitCode).toBeNull();
  });
});
