// Any size gets a verdict: tool calls and prompts of any size, through the real recap-hook
// and the HTTP endpoint, are judged (up to 64 MiB) or refused with a reason (past it), never
// taken for a dead daemon and waved through. After each, the way out still passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { join } from 'node:path';
import { DEFAULT_MAX_FRAME, MAX_HOOK_PAYLOAD } from '../../src/common/frames.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { RawClient, runCli, type Sandbox } from '../helpers/daemon.js';
import { expectDenied, expectWayOutOpen, payload, proveWayOut, runHook, toolCall, TRIP_PROMPTS, trippedSandbox, endAttack, type Attack } from '../helpers/gateAttack.js';
import { enableHttp, httpDenyReason, postHook, type Endpoint, type HttpReply } from '../helpers/hookHttp.js';

const MiB = 1024 * 1024;
/** Prose of about `bytes` bytes: words and numbers, as a real file or prompt has. */
function prose(bytes: number): string {
  const words = ['parser', 'config', 'retry', 'backoff', 'session', 'cache', 'latency', 'histogram', 'migration', 'token'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i += 1) {
    const word = `${words[i % words.length]} ${i % 997}`;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ').slice(0, bytes);
}

let box: Sandbox;
let attack: Attack;

beforeAll(async () => {
  attack = await trippedSandbox({ http: true });
  box = attack.box;
});
afterAll(() => endAttack(attack));

const file = (name: string) => join(box.project, name);

describe('a tool call of any size through recap-hook is judged', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['a 1.1 MiB Write', () => toolCall(attack, 'Write', { file_path: file('big.txt'), content: prose(1.1 * MiB) })],
    ['an 8 MiB Write', () => toolCall(attack, 'Write', { file_path: file('big.txt'), content: prose(8 * MiB) })],
    ['a 1.1 MiB Write of four-byte characters', () => toolCall(attack, 'Write', { file_path: file('emoji.txt'), content: '🦀'.repeat(0.3 * MiB) })],
    ['a Bash call with a 2 MiB description', () => toolCall(attack, 'Bash', { command: 'ls', description: prose(2 * MiB) })],
    ['a Bash call with a 2 MiB command', () => toolCall(attack, 'Bash', { command: `echo ${prose(2 * MiB)}`, description: 'echo' })],
    ['an Edit with 4 MiB strings', () => toolCall(attack, 'Edit', { file_path: file('a.ts'), old_string: prose(2 * MiB), new_string: prose(2 * MiB) })],
    [
      'a MultiEdit of 2000 edits',
      () => toolCall(attack, 'MultiEdit', { file_path: file('a.ts'), edits: Array.from({ length: 2000 }, (_, i) => ({ old_string: `x${i}`, new_string: prose(1024) })) }),
    ],
    [
      'a tool input of 200,000 keys',
      () => toolCall(attack, 'Write', { file_path: file('k.txt'), content: 'x', ...Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i])) }),
    ],
    ['a 1 MiB Glob pattern', () => toolCall(attack, 'Glob', { pattern: `${'a/'.repeat(0.5 * MiB)}*.ts` })],
    ['a 2 MiB tool name field beside the input', () => toolCall(attack, 'Read', { file_path: file('README.md') }, { tool_use_id: prose(2 * MiB) })],
  ];
  for (const [name, make] of cases) {
    it(`denies ${name}, and the way out stays open`, async () => {
      const reason = expectDenied(await runHook(box.env, make()));
      // The daemon judged it: the gate's own reason, not a fallback's.
      expect(reason).toContain('submit');
      expect(reason).not.toContain('not answering');
      await expectWayOutOpen(attack);
    });
  }

  it('denies a Write just under 64 MiB, judged whole by the daemon', async () => {
    const content = 'a'.repeat(MAX_HOOK_PAYLOAD - 4096);
    const reason = expectDenied(await runHook(box.env, toolCall(attack, 'Write', { file_path: file('huge.txt'), content })));
    expect(reason).not.toContain('not answering');
    await expectWayOutOpen(attack);
  });

  it('denies a Write over 64 MiB with a reason naming the limit, never as a dead daemon', async () => {
    const run = await runHook(box.env, toolCall(attack, 'Write', { file_path: file('huge.txt'), content: 'a'.repeat(MAX_HOOK_PAYLOAD + 1024) }));
    const reason = expectDenied(run);
    expect(reason).toContain('over 64 MiB');
    expect(reason).toContain('smaller');
    await expectWayOutOpen(attack);
  });

  it('denies a deeply nested tool input (a parser bomb) without crashing', async () => {
    const nested = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const raw = JSON.stringify(toolCall(attack, 'Write', { file_path: file('n.txt'), content: 'x' })).replace('"x"', nested);
    expectDenied(await runHook(box.env, raw));
    await expectWayOutOpen(attack);
  });

  it('the way out works after the size attacks', async () => {
    await proveWayOut(attack);
    // Tripped again for the cases that follow.
    for (const prompt of TRIP_PROMPTS) await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }));
    expectDenied(await runHook(box.env, toolCall(attack, 'Read', { file_path: file('README.md') })));
  });
});

describe('a prompt of any size is counted, never blocked', () => {
  it('counts a 3 MiB prompt exactly', async () => {
    const before = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedTokens: number };
    const prompt = prose(3 * MiB);
    const run = await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('deny');
    const after = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedTokens: number };
    const count = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1 });
    expect(after.unsummarizedTokens - before.unsummarizedTokens).toBe(count(prompt));
    expectDenied(await runHook(box.env, toolCall(attack, 'Read', { file_path: file('README.md') })));
    await expectWayOutOpen(attack);
  });

  it('a prompt over 64 MiB is not blocked, and counted as far as the limit', async () => {
    const status = async () => (JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedTokens: number }).unsummarizedTokens;
    const before = await status();
    const whole = payload(attack, 'UserPromptSubmit', { prompt: 'p'.repeat(MAX_HOOK_PAYLOAD + 1024) });
    const run = await runHook(box.env, whole);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('"permissionDecision"');
    expect(JSON.parse(run.stdout)).toMatchObject({ systemMessage: expect.stringContaining('its first 64 MiB were counted') });
    // What arrived before the limit: the payload's first 64 MiB, less the fields before the prompt.
    const header = JSON.stringify(whole).indexOf('"prompt":"') + '"prompt":"'.length;
    const count = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1 });
    expect((await status()) - before).toBe(count('p'.repeat(MAX_HOOK_PAYLOAD - header)));
    await expectWayOutOpen(attack);
  });
});

describe('the HTTP endpoint judges any size', () => {
  let endpoint: Endpoint;
  beforeAll(async () => {
    endpoint = await enableHttp(box);
  });

  it('denies a 2 MiB Write with a 200 deny body', async () => {
    const reason = httpDenyReason(await postHook(endpoint, toolCall(attack, 'Write', { file_path: file('big.txt'), content: prose(2 * MiB) })));
    expect(reason).toContain('submit');
    await expectWayOutOpen(attack);
  });

  it('denies a 16 MiB Bash description with a 200 deny body', async () => {
    httpDenyReason(await postHook(endpoint, toolCall(attack, 'Bash', { command: 'ls', description: 'd'.repeat(16 * MiB) })));
    await expectWayOutOpen(attack);
  });

  it('answers a body over 64 MiB with a 200 deny naming the limit, not a 413 that fails open', async () => {
    const body = Buffer.from(JSON.stringify(toolCall(attack, 'Write', { file_path: file('huge.txt'), content: 'a'.repeat(MAX_HOOK_PAYLOAD + 1024) })));
    const reason = httpDenyReason(await postHook(endpoint, body));
    expect(reason).toContain('over 64 MiB');
    await expectWayOutOpen(attack);
  });

  it('past the bytes all requests may hold at once, a tool call gets a 200 deny, not a failure', async () => {
    // Three requests hold 63 MiB each, their bodies unfinished (each write has reached the
    // kernel, so the endpoint holds all but what the sockets buffer): over its limit once a
    // fourth comes in whole.
    const held = Buffer.from(JSON.stringify(toolCall(attack, 'Write', { file_path: file('h.txt'), content: 'a'.repeat(63 * MiB) })));
    const holders = [0, 1, 2].map(() => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${endpoint.token}`, 'content-length': held.length };
      const req = request({ host: '127.0.0.1', port: endpoint.port, method: 'POST', path: '/hooks/claude', headers });
      const reply = new Promise<HttpReply>((resolve) => {
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      });
      const written = new Promise<void>((resolve) => req.write(held.subarray(0, -1), () => resolve()));
      return { req, reply, written };
    });
    await Promise.all(holders.map((h) => h.written));
    const part = Buffer.from(JSON.stringify(toolCall(attack, 'Write', { file_path: file('w.txt'), content: 'a'.repeat(60 * MiB) })));
    expect(httpDenyReason(await postHook(endpoint, part))).toContain('try again in a moment');
    // The held requests, finished, are judged: each a deny too (by the gate, or as busy).
    for (const holder of holders) holder.req.end(held.subarray(-1));
    for (const holder of holders) httpDenyReason(await holder.reply);
    await expectWayOutOpen(attack);
  });

  it('a prompt over 64 MiB is not blocked, and counted as far as the limit', async () => {
    const status = async () => (JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { unsummarizedTokens: number }).unsummarizedTokens;
    const before = await status();
    const whole = payload(attack, 'UserPromptSubmit', { prompt: 'q'.repeat(MAX_HOOK_PAYLOAD + 1024) });
    const reply = await postHook(endpoint, Buffer.from(JSON.stringify(whole)));
    expect(reply).toMatchObject({ status: 200 });
    const body = (reply as { body: string }).body;
    expect(body).not.toContain('"permissionDecision"');
    expect(JSON.parse(body)).toMatchObject({ systemMessage: expect.stringContaining('its first 64 MiB were counted') });
    const header = JSON.stringify(whole).indexOf('"prompt":"') + '"prompt":"'.length;
    const count = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1 });
    expect((await status()) - before).toBe(count('q'.repeat(MAX_HOOK_PAYLOAD - header)));
    await expectWayOutOpen(attack);
  });
});

describe('clients name their own limits, never a dead daemon', () => {
  it('recap submit of more than a frame holds says so and names the limit', async () => {
    const result = await runCli(box, ['submit'], { input: 'x'.repeat(DEFAULT_MAX_FRAME + 1) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('over the 64.06 MiB a recap request may be');
    expect(result.stderr).not.toContain('closed the connection');
    await expectWayOutOpen(attack);
  });

  it('a frame over the limit gets an error naming it, and the gate holds', async () => {
    const client = await RawClient.connect(box.socket);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(DEFAULT_MAX_FRAME + 1, 0);
    client.sendBytes(header);
    const [answer] = await client.received(1);
    expect(answer).toMatchObject({ id: null, error: { code: 'frame_too_large', message: expect.stringContaining(`over the limit of ${DEFAULT_MAX_FRAME} bytes`) } });
    await client.closed;
    await expectWayOutOpen(attack);
  });

  it('caps the bytes of unfinished frames across connections: past it the daemon says it is busy', async () => {
    const clients = await Promise.all([0, 1, 2].map(() => RawClient.connect(box.socket)));
    const part = Buffer.alloc(60 * MiB, 0x20);
    // Three frames of 64 MiB begun, none finished: more than the daemon holds at once.
    for (const client of clients) {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(MAX_HOOK_PAYLOAD, 0);
      client.sendBytes(Buffer.concat([header, part]));
    }
    const busy = await Promise.race(clients.map((c) => c.received(1).then((frames) => frames[0])));
    expect(busy).toMatchObject({ id: null, error: { code: 'busy', message: expect.stringContaining('unfinished requests') } });
    for (const client of clients) client.socket.destroy();
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });
});
