// The socket protocol against the real daemon: pipelining, many clients, bad frames.
import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_MAX_FRAME } from '../../src/common/frames.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, lengthPrefixed, RawClient, sandbox, sandboxWithDaemon, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { prose } from '../helpers/text.js';

describe('the socket protocol', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => ({ box, daemon } = await sandboxWithDaemon()));
  afterAll(() => closeSandbox(box, daemon));

  it('answers ping with the version', async () => {
    const client = await RawClient.connect(box.socket);
    expect(await client.request({ id: 1, op: 'ping' })).toEqual({ id: 1, result: { version: expect.any(String) } });
    client.close();
  });

  it('answers pipelined requests on one connection, each by its id', async () => {
    const client = await RawClient.connect(box.socket);
    for (let id = 0; id < 200; id += 1) client.send({ id, op: 'record', job: 'pipelined', kind: 'prompt', text: `prompt ${id}` });
    const frames = await client.received(200);
    expect(frames.map((f) => f.id).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 200 }, (_, i) => i));
    const seqs = frames.map((f) => (f.result as { seq: number }).seq);
    expect(new Set(seqs).size).toBe(200);
    const status = await client.request({ id: 'status', op: 'status', job: 'pipelined' });
    expect(status.result).toMatchObject({ unsummarizedInteractions: 200 });
    client.close();
  });

  it('answers every frame of one write once, the broken ones with errors, whether the answer is immediate or waits for the disk', async () => {
    const client = await RawClient.connect(box.socket);
    const frame = (message: unknown) => lengthPrefixed(Buffer.from(JSON.stringify(message)));
    const checks = Array.from({ length: 20 }, (_, i) => frame({ id: `check-${i}`, op: 'check', job: 'one-write', tool: 'Read', input: { file_path: '/x' } }));
    const records = Array.from({ length: 20 }, (_, i) => frame({ id: `record-${i}`, op: 'record', job: 'one-write', kind: 'prompt', text: `prompt ${i}` }));
    client.sendBytes(Buffer.concat([lengthPrefixed(Buffer.from('{not json')), ...checks, frame({ id: 'verify', op: 'verify' }), ...records, frame({ id: 'odd', op: 'nope' })]));
    const answers = await client.received(43);
    const byId = new Map(answers.map((a) => [String(a.id), a]));
    expect(byId.size).toBe(43);
    expect(byId.get('null')).toMatchObject({ error: { code: 'invalid_frame' } });
    expect(byId.get('odd')).toMatchObject({ error: { code: 'unknown_op' } });
    expect(byId.get('verify')).toMatchObject({ result: { ok: true } });
    for (let i = 0; i < 20; i += 1) {
      expect(byId.get(`check-${i}`)).toMatchObject({ result: { allow: true } });
      expect(byId.get(`record-${i}`)).toMatchObject({ result: { seq: expect.any(Number) } });
    }
    client.close();
  });

  it('serves many clients at once', async () => {
    const clients = await Promise.all(Array.from({ length: 32 }, () => RawClient.connect(box.socket)));
    const answers = await Promise.all(clients.map((c, i) => c.request({ id: i, op: 'check', job: 'many', tool: 'Read', input: { file_path: '/x' } })));
    expect(answers.every((a) => (a.result as { allow: boolean }).allow)).toBe(true);
    for (const c of clients) c.close();
  });

  it('answers invalid JSON, invalid UTF-8, wrong shapes and unknown ops with errors while another client is served', async () => {
    const bad = await RawClient.connect(box.socket);
    const good = await RawClient.connect(box.socket);

    bad.sendBytes(lengthPrefixed(Buffer.from('{"id":1,"op":')));
    bad.sendBytes(lengthPrefixed(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])));
    bad.send([1, 2, 3]);
    bad.send({ id: 4, op: 'format-disk' });
    bad.send({ id: 5, op: 'record', job: '', kind: 'Prompt!', text: 3 });
    const goodAnswer = good.request({ id: 'g', op: 'ping' });
    const errors = await bad.received(5);

    expect(errors[0]).toEqual({ id: null, error: { code: 'invalid_frame', message: 'the frame is not valid JSON' } });
    expect(errors[1]).toEqual({ id: null, error: { code: 'invalid_frame', message: 'the frame is not valid UTF-8' } });
    expect(errors[2]).toMatchObject({ id: null, error: { code: 'bad_request' } });
    expect(errors[3]).toMatchObject({ id: 4, error: { code: 'unknown_op', message: expect.stringContaining('known ops: ping, record') } });
    const shape = errors[4] as { id: number; error: { code: string; message: string } };
    expect(shape.id).toBe(5);
    expect(shape.error.code).toBe('bad_request');
    expect(shape.error.message).toContain('record: job is empty; kind is a lower-case word such as prompt or qa; text: ');
    expect(shape.error.message).toContain('text:');
    expect(await goodAnswer).toMatchObject({ id: 'g', result: { version: expect.any(String) } });

    // The same connection goes on working after bad frames.
    expect(await bad.request({ id: 6, op: 'ping' })).toMatchObject({ id: 6, result: {} });
    bad.close();
    good.close();
  });

  it('closes only the connection that announces an oversized frame, after saying why', async () => {
    const bad = await RawClient.connect(box.socket);
    const good = await RawClient.connect(box.socket);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(DEFAULT_MAX_FRAME + 1, 0);
    bad.sendBytes(Buffer.concat([header, Buffer.alloc(1000, 0x20)]));
    const [answer] = await bad.received(1);
    expect(answer).toMatchObject({ id: null, error: { code: 'frame_too_large', message: expect.stringContaining(`over the limit of ${DEFAULT_MAX_FRAME} bytes`) } });
    await bad.closed;
    expect(await good.request({ id: 1, op: 'status', job: 'still-served' })).toMatchObject({ id: 1, result: { job: 'still-served' } });
    good.close();
  });

  it('accepts a frame just under the limit', async () => {
    const client = await RawClient.connect(box.socket);
    const text = prose(1).padEnd(1000 * 1000, ' x');
    const answer = await client.request({ id: 1, op: 'record', job: 'big', kind: 'tool', text });
    expect(answer).toMatchObject({ id: 1, result: { seq: expect.any(Number) } });
    client.close();
  });
});

describe('checks with the prepared context (made on the first check, reused after)', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => ({ box, daemon } = await sandboxWithDaemon()));
  afterAll(() => closeSandbox(box, daemon));

  // Allowed, denied (recap's own socket), shell calls by two agents' shell tools, on an open
  // gate and on a tripped one: the answers of a fresh daemon's first round (no context made
  // yet) and of later rounds (contexts reused) must be the same bytes.
  const round = (job: string, tag: string) => [
    { id: `${tag}-read`, op: 'check', job, tool: 'Read', input: { file_path: '/x' } },
    { id: `${tag}-socket`, op: 'check', job, tool: 'Write', input: { file_path: box.socket, content: 'x' } },
    { id: `${tag}-bash`, op: 'check', job, tool: 'Bash', input: { command: `rm -rf ${box.data}` } },
    { id: `${tag}-ls`, op: 'check', job, tool: 'Bash', input: { command: 'ls' } },
    { id: `${tag}-gemini`, op: 'check', job, from: 'gemini', tool: 'run_shell_command', input: { command: 'ls' } },
    { id: `${tag}-codex`, op: 'check', job, from: 'codex', tool: 'shell', input: { command: ['ls'] } },
  ];
  const answersOf = async (job: string, tag: string) => {
    const client = await RawClient.connect(box.socket);
    const requests = round(job, tag);
    for (const r of requests) client.send(r);
    const answers = await client.received(requests.length);
    client.close();
    return new Map(answers.map((a) => [String(a.id).slice(tag.length), JSON.stringify({ ...a, id: undefined })]));
  };

  it('answers a check the same on the first call and on every later one, open gate and tripped', async () => {
    const first = await answersOf('cached', 'a');
    for (const tag of ['b', 'c']) expect(await answersOf('cached', tag)).toEqual(first);
    expect(JSON.parse(first.get('-read')!)).toMatchObject({ result: { allow: true } });
    expect(JSON.parse(first.get('-socket')!)).toMatchObject({ result: { allow: false } });

    const client = await RawClient.connect(box.socket);
    expect(await client.request({ id: 'prompt', op: 'record', job: 'cached', kind: 'prompt', text: 'a prompt' })).toMatchObject({ result: { seq: expect.any(Number) } });
    client.frames.length = 0;
    expect(await client.request({ id: 'trip', op: 'trip', job: 'cached' })).toMatchObject({ result: { tripped: true } });
    client.close();
    const tripped = await answersOf('cached', 'd');
    expect(JSON.parse(tripped.get('-read')!)).toMatchObject({ result: { allow: false } });
    expect(await answersOf('cached', 'e')).toEqual(tripped);
  });
});

// The check op names each of its request's fields when it hands them to the check (not by a
// spread: see Handler.checkTool): every one must still reach it.
describe("a check request's fields, each of which reaches the check", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    box = sandbox();
    writeFileSync(box.config, 'TOKEN_ENCODING=words\nTRIGGER_CONTEXT_PERCENT=50\n');
    daemon = await startDaemon(box);
  });
  afterAll(() => closeSandbox(box, daemon));

  it('finds the job by project and session, resolves paths by cwd, trips by contextTokens of contextWindow, and records session and agent', async () => {
    const client = await RawClient.connect(box.socket);
    const job = jobIdFor(box.project);
    const who = { project: box.project, session: 'sess-1', agent: 'claude-code' };
    expect(await client.request({ id: 'prompt', op: 'record', job, kind: 'prompt', text: 'start the parser work' })).toMatchObject({ result: { seq: expect.any(Number) } });
    // A path relative to cwd: the socket itself, one of recap's files.
    const socketByCwd = { id: 'cwd', op: 'check', ...who, cwd: dirname(box.socket), tool: 'Write', input: { file_path: 'recapd.sock', content: 'x' } };
    expect(await client.request(socketByCwd)).toMatchObject({ result: { allow: false } });
    expect(await client.request({ id: 'under', op: 'check', ...who, contextTokens: 400, contextWindow: 1000, tool: 'Read', input: { file_path: '/x' } })).toMatchObject({
      result: { allow: true },
    });
    const over = await client.request({ id: 'over', op: 'check', ...who, contextTokens: 600, contextWindow: 1000, tool: 'Read', input: { file_path: '/x' } });
    expect(over).toMatchObject({ result: { allow: false, reason: expect.stringContaining('context use reached 60%') } });
    const page = await client.request({ id: 'events', op: 'events', job });
    const events = (page.result as { events: { type: string; data: Record<string, unknown> }[] }).events;
    expect(events.map((e) => e.type)).toEqual(['InteractionRecorded', 'SessionBound', 'ToolDenied', 'GateTripped', 'ToolDenied']);
    for (const denied of events.filter((e) => e.type === 'ToolDenied')) expect(denied.data).toMatchObject({ job, session: 'sess-1', agent: 'claude-code' });
    expect(events.find((e) => e.type === 'SessionBound')!.data).toMatchObject({ session: 'sess-1', job });
    client.close();
  });
});
