// Failure modes fail in the safe direction without bricking: input recap-hook cannot read,
// shapes it does not expect, a daemon that answers nonsense or nothing, a hook stopped or
// damaged, an HTTP request that is broken or comes from a foreign Host: a tool call is
// denied with a reason (silence would let it run), a prompt is never blocked, and after
// each the way out still passes.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Sandbox } from '../helpers/daemon.js';
import { encodeFrame } from '../../src/common/frames.js';
import {
  expectAllowed,
  expectDenied,
  expectWayOutOpen,
  HOOK,
  payload,
  proveWayOut,
  runHook,
  toolCall,
  TRIP_PROMPTS,
  trippedSandbox,
  endAttack,
  type Attack,
  type HookRun,
} from '../helpers/gateAttack.js';
import { enableHttp, httpDenyReason, postHook, type Endpoint } from '../helpers/hookHttp.js';

let box: Sandbox;
let attack: Attack;

beforeAll(async () => {
  attack = await trippedSandbox({ http: true });
  box = attack.box;
});
afterAll(() => endAttack(attack));

const read = () => toolCall(attack, 'Read', { file_path: join(box.project, 'README.md') });
/** The payload's JSON cut short near its end, as a writer that died mid-way leaves it. */
const half = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.slice(0, text.length - 12);
};

/** A prompt or a session start is never blocked: exit 0 and no deny, whatever it printed. */
function expectNotBlocked(run: HookRun): void {
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).not.toContain('"permissionDecision"');
}

describe('input recap-hook cannot read', () => {
  const inputs: [string, () => string][] = [
    ['text that is not JSON', () => '{not json'],
    ['a truncated tool call', () => half(read())],
    ['no input at all', () => ''],
    ['an array', () => '[]'],
    ['null', () => 'null'],
    ['a number', () => '42'],
    ['a JSON string', () => '"PreToolUse"'],
    ['binary bytes', () => '\u00ff\u00fe\u0000\u0001binary'],
    ['a tool call cut inside a string escape', () => `${JSON.stringify(read()).slice(0, 40)}\\`],
  ];
  for (const [name, make] of inputs) {
    it(`denies a tool call given ${name}, with a reason; the way out stays open`, async () => {
      const reason = expectDenied(await runHook(box.env, make()));
      expect(reason).toMatch(/recap: .+, so this tool call was denied: .+/);
      await expectWayOutOpen(attack);
    });
  }

  it('a truncated prompt is not blocked (the user is told instead)', async () => {
    const run = await runHook(box.env, half(payload(attack, 'UserPromptSubmit', { prompt: 'please fix the parser in src/parser' })));
    expectNotBlocked(run);
    expect(JSON.parse(run.stdout)).toMatchObject({ systemMessage: expect.stringContaining('UserPromptSubmit was not checked') });
    await expectWayOutOpen(attack);
  });

  it('a truncated session start blocks nothing', async () => {
    expectNotBlocked(await runHook(box.env, half(payload(attack, 'SessionStart', { source: 'startup' }))));
    await expectWayOutOpen(attack);
  });

  it('uses the first object when more follow, and judges it', async () => {
    const reason = expectDenied(await runHook(box.env, `${JSON.stringify(read())}\n{"hook_event_name":"SessionStart"}`));
    expect(reason).toContain('submit');
    await expectWayOutOpen(attack);
  });
});

describe('tool calls of unexpected shapes are judged, not waved through', () => {
  const shapes: [string, () => unknown][] = [
    ['a null tool input', () => toolCall(attack, 'Write', null)],
    ['an array tool input', () => toolCall(attack, 'Write', ['a', 'b'])],
    ['a string tool input', () => toolCall(attack, 'Bash', 'ls -la')],
    ['a tool recap has never heard of', () => toolCall(attack, 'Frobnicate', { x: 1 })],
    ['unknown fields everywhere', () => ({ ...toolCall(attack, 'Read', { file_path: '/etc/hosts', extra: { deep: [1, 2] } }), surprise: true, effort: { level: 'max' } })],
    ['a Bash command that is a number', () => toolCall(attack, 'Bash', { command: 42 })],
    ['invalid UTF-8 inside a string', () => JSON.stringify(toolCall(attack, 'Write', { file_path: 'x', content: 'PLACEHOLDER' })).replace('PLACEHOLDER', '\udc00\ud800')],
  ];
  for (const [name, make] of shapes) {
    it(`denies ${name}; the way out stays open`, async () => {
      expectDenied(await runHook(box.env, make()));
      await expectWayOutOpen(attack);
    });
  }
  it('the way out works after the unreadable inputs and shapes', async () => {
    await proveWayOut(attack);
    for (const prompt of TRIP_PROMPTS) await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }));
    expectDenied(await runHook(box.env, read()));
  });
});

describe('a daemon that answers nonsense or nothing, a hook stopped or damaged', () => {
  /** What sits on the socket instead of the daemon: told how to treat each connection. */
  let fake: Server;
  let treat: (socket: Socket) => void = () => undefined;
  let connected: (() => void) | undefined;
  const sockets = new Set<Socket>();
  /** Closes the fake and every connection to it (a hook still waiting on one included). */
  const closeFake = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => fake.close(() => resolve()));
  };
  const env = () => ({ ...box.env, RECAP_HOOK_DEADLINE_MS: '500' });

  beforeAll(async () => {
    // The real daemon goes; its verdict file stays beside the socket, as after a crash.
    await attack.daemon.stop('SIGKILL');
    rmSync(box.socket, { force: true });
    fake = createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.once('data', () => connected?.());
      treat(socket);
    });
    await new Promise<void>((resolve) => fake.listen(box.socket, resolve));
  });
  afterAll(async () => {
    if (fake.listening) await closeFake();
  });

  const answers: [string, (socket: Socket) => void][] = [
    ['never answers', () => undefined],
    ['answers a frame that is not JSON', (s) => s.once('data', () => s.write(Buffer.concat([Buffer.from([0, 0, 0, 5]), Buffer.from('{nope')])))],
    ['answers an internal error', (s) => s.once('data', () => s.write(encodeFrame({ id: 1, error: { code: 'internal', message: 'boom' } })))],
    ['answers an error for no request', (s) => s.once('data', () => s.write(encodeFrame({ id: null, error: { code: 'busy', message: 'too busy' } })))],
    ['closes the connection on the request', (s) => s.once('data', () => s.destroy())],
    ['answers a result of the wrong shape', (s) => s.once('data', () => s.write(encodeFrame({ id: 1, result: { stdout: 42 } })))],
  ];
  for (const [name, behave] of answers) {
    it(`a daemon that ${name}: the tripped job is denied from the verdict file; the way out passes`, async () => {
      treat = behave;
      const reason = expectDenied(await runHook(env(), read()));
      expect(reason).toContain(attack.job);
      const saved = box.env;
      box.env = env();
      try {
        await expectWayOutOpen(attack);
      } finally {
        box.env = saved;
      }
    });
  }

  /** Runs the hook and stops it with SIGTERM once its request has reached the socket. */
  async function stoppedHook(input: unknown, hook = HOOK): Promise<HookRun> {
    treat = () => undefined;
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const child = spawn(process.execPath, [hook, 'claude'], { env: box.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.stdin.end(JSON.stringify(input));
    await reached;
    child.kill('SIGTERM');
    const exitCode = await closed;
    return { stdout, stderr, exitCode };
  }

  it('a hook stopped (SIGTERM) while it waits denies the tool call', async () => {
    const reason = expectDenied(await stoppedHook(read()));
    expect(reason).toContain('stopped before the daemon answered');
  });

  it('a hook stopped while it waits never blocks a prompt', async () => {
    expectNotBlocked(await stoppedHook(payload(attack, 'UserPromptSubmit', { prompt: 'go on' })));
  });

  it('a damaged install (the fallback file missing) denies instead of crashing into an allow', async () => {
    const bin = join(box.dir, 'damaged', 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(HOOK, join(bin, 'recap-hook.cjs'));
    treat = () => undefined;
    const run = await new Promise<HookRun>((resolve) => {
      const child = spawn(process.execPath, [join(bin, 'recap-hook.cjs'), 'claude'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.once('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
      child.stdin.end(JSON.stringify(read()));
    });
    expect(expectDenied(run)).toContain('reinstall recap');
  });

  it('with the daemon back, the way out opens the gate', async () => {
    await closeFake();
    rmSync(box.socket, { force: true });
    attack.daemon = await startDaemon(box);
    await proveWayOut(attack);
    for (const prompt of TRIP_PROMPTS) await runHook(box.env, payload(attack, 'UserPromptSubmit', { prompt }));
    expectDenied(await runHook(box.env, read()));
  });
});

describe('the HTTP endpoint in the safe direction', () => {
  let endpoint: Endpoint;
  beforeAll(async () => {
    endpoint = await enableHttp(box);
  });

  const bodies: [string, () => Buffer][] = [
    ['a body that is not JSON', () => Buffer.from('{not json')],
    ['a truncated tool call', () => Buffer.from(half(read()))],
    ['an empty body', () => Buffer.alloc(0)],
  ];
  for (const [name, make] of bodies) {
    it(`answers ${name} with a 200 deny; the way out stays open`, async () => {
      expect(httpDenyReason(await postHook(endpoint, make()))).toContain('so this tool call was denied');
      await expectWayOutOpen(attack);
    });
  }

  it('a truncated prompt gets an error status (which never blocks a prompt), not a deny', async () => {
    const reply = await postHook(endpoint, Buffer.from(half(payload(attack, 'UserPromptSubmit', { prompt: 'go on' }))));
    expect(reply).toMatchObject({ status: 400 });
    await expectWayOutOpen(attack);
  });

  const hosts = ['evil.example', 'localhost.evil.example', '127.0.0.1.nip.io', 'attacker:47654', '0.0.0.0', '127.0.0.2'];
  for (const host of hosts) {
    it(`refuses Host ${JSON.stringify(host)} on every request (DNS rebinding), with or without the token`, async () => {
      for (const [method, path] of [
        ['POST', '/hooks/claude'],
        ['GET', '/'],
        ['GET', '/hooks/claude'],
        ['POST', '/other'],
      ] as const) {
        const reply = await postHook(endpoint, read(), { method, path, headers: { host } });
        expect(reply, `${method} ${path}`).toMatchObject({ status: 403 });
      }
      expect(httpDenyReason(await postHook(endpoint, read()))).toContain('submit');
      await expectWayOutOpen(attack);
    });
  }

  it('keeps its token: none, a wrong one, or another scheme get 401', async () => {
    for (const authorization of ['', 'Bearer wrong', `Basic ${endpoint.token}`, endpoint.token]) {
      expect(await postHook(endpoint, read(), { headers: { authorization } })).toMatchObject({ status: 401 });
    }
    await expectWayOutOpen(attack);
  });

  it('refuses a request a browser made (Origin), and the way out works after', async () => {
    expect(await postHook(endpoint, read(), { headers: { origin: 'https://evil.example' } })).toMatchObject({ status: 403 });
    httpDenyReason(await postHook(endpoint, read()));
    await proveWayOut(attack);
    expectAllowed(await runHook(box.env, read()));
  });
});
