// The HTTP hook endpoint of the real daemon, enabled by `recap install claude --http`:
// loopback only, bearer token, Host and Origin checks, the same answers as the socket.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, RawClient, removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { prose } from '../helpers/text.js';

type Reply = { status?: number; body?: string; error?: string; reusedSocket?: boolean };

function send(port: number, options: { method?: string; path?: string; headers?: OutgoingHttpHeaders; body?: string | Buffer; agent?: Agent; host?: string } = {}): Promise<Reply> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: options.host ?? '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/hooks/claude',
        headers: { 'content-type': 'application/json', ...options.headers },
        agent: options.agent ?? false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.once('end', () => resolve({ status: res.statusCode!, body, reusedSocket: req.reusedSocket }));
        res.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    req.once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(options.body);
  });
}

/** Resolves with the connection error's code, or 'connected' if something accepted. */
function tcpConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

// Each project its own session: a session keeps the job of the folder it was first seen in.
const common = (cwd: string) => ({ session_id: `http-session-${basename(cwd)}`, transcript_path: join(cwd, 't.jsonl'), cwd, permission_mode: 'default' });
const preToolUse = (cwd: string, tool: string, input: unknown) => ({ ...common(cwd), hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'toolu_9' });

type Deny = { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };

describe('the HTTP hook endpoint', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let port: number;
  let token: string;
  let tokenFile: string;
  let socket: RawClient;
  let nextId = 1;

  const auth = () => ({ authorization: `Bearer ${token}` });
  const post = (payload: unknown, headers: OutgoingHttpHeaders = auth(), agent?: Agent) => send(port, { body: JSON.stringify(payload), headers, ...(agent ? { agent } : {}) });
  /** The same payload through the socket's hook op: what the command hook would print. */
  const viaSocket = async (payload: unknown): Promise<string> => {
    const answer = await socket.request({ id: nextId++, op: 'hook', agent: 'claude', payload });
    return (answer.result as { stdout: string }).stdout;
  };

  beforeAll(async () => {
    box = sandbox();
    port = await freePort();
    box.env.RECAP_HTTP_PORT = String(port);
    tokenFile = join(box.data, 'http-token');
    daemon = await startDaemon(box);
    // HOME is the sandbox: the hooks go to <sandbox>/.claude/settings.json.
    const installed = await runCli(box, ['install', 'claude', '--http', '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(JSON.parse(installed.stdout)).toMatchObject({ file: join(box.dir, '.claude', 'settings.json'), mode: 'http', changed: true });
    token = readFileSync(tokenFile, 'utf8').trim();
    socket = await RawClient.connect(box.socket);
  });
  afterAll(async () => {
    socket?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it('is enabled by recap install claude --http, which writes the URL and token into the settings (0600)', async () => {
    const url = `http://127.0.0.1:${port}/hooks/claude`;
    const listening = await daemon.waitForLog((l) => l.msg === 'HTTP hook endpoint listening');
    expect(listening.url).toBe(url);
    const settingsFile = join(box.dir, '.claude', 'settings.json');
    expect(statSync(settingsFile).mode & 0o777).toBe(0o600);
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
    expect(settings.hooks.PreToolUse![0]!.hooks[0]).toMatchObject({ type: 'http', url, headers: { Authorization: `Bearer ${token}` } });
    expect(settings.hooks.SessionStart![0]!.hooks[0]).toMatchObject({ type: 'command' });
    // The raw socket op gives the same endpoint and the same token file.
    const enabled = await socket.request({ id: nextId++, op: 'http' });
    expect(enabled.result).toEqual({ url, tokenFile });
  });

  it('keeps the token in a file only the user can read (0600)', () => {
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  it('with the right token answers 200 and exactly what the socket answers', async () => {
    const cwd = box.project;
    // Allowed: an empty answer on the socket, an empty JSON object over HTTP.
    const allowed = preToolUse(cwd, 'Read', { file_path: join(cwd, 'src', 'a.ts') });
    expect(await post(allowed)).toEqual({ status: 200, body: '{}', reusedSocket: false });
    expect(await viaSocket(allowed)).toBe('');

    // recap's own files are off limits: a deny, the same both ways.
    const ownFile = preToolUse(cwd, 'Read', { file_path: join(box.data, 'http-token') });
    const http = await post(ownFile);
    expect(http.status).toBe(200);
    const deny = JSON.parse(http.body!) as Deny;
    expect(deny.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(deny).toEqual(JSON.parse(await viaSocket(ownFile)));
  });

  it('denies any tool once a prompt posted to it trips the gate, as the socket does', async () => {
    const cwd = join(box.dir, 'tripped');
    mkdirSync(join(cwd, '.git'), { recursive: true });
    const prompt = await post({ ...common(cwd), hook_event_name: 'UserPromptSubmit', prompt: prose(30) });
    expect(prompt.status).toBe(200);
    expect(JSON.parse(prompt.body!)).toMatchObject({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit' } });

    const bash = preToolUse(cwd, 'Bash', { command: 'ls -la', description: 'list' });
    const http = await post(bash);
    expect(http.status).toBe(200);
    const deny = JSON.parse(http.body!) as Deny;
    expect(deny.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(deny.hookSpecificOutput.permissionDecisionReason).toContain('recap submit');
    expect(deny).toEqual(JSON.parse(await viaSocket(bash)));
  });

  it('refuses a missing or wrong token with 401, whatever its length', async () => {
    const payload = preToolUse(box.project, 'Read', { file_path: '/etc/hosts' });
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(flipped).toHaveLength(token.length);
    const wrong: [string, OutgoingHttpHeaders][] = [
      ['missing', {}],
      ['same length', { authorization: `Bearer ${flipped}` }],
      ['shorter', { authorization: 'Bearer abc' }],
      ['longer', { authorization: `Bearer ${token}x` }],
      ['empty', { authorization: '' }],
      ['no scheme', { authorization: token }],
      ['another scheme', { authorization: `Basic ${token}` }],
    ];
    for (const [name, headers] of wrong) {
      const reply = await post(payload, headers);
      expect(reply.status, name).toBe(401);
      expect(reply.body, name).not.toContain(token);
    }
  });

  it('refuses a Host that is not loopback and any request with an Origin header (403)', async () => {
    const payload = preToolUse(box.project, 'Read', { file_path: '/etc/hosts' });
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      expect((await post(payload, { ...auth(), host })).status, host).toBe(403);
    }
    for (const origin of ['https://evil.example', `http://127.0.0.1:${port}`, 'null']) {
      expect((await post(payload, { ...auth(), origin })).status, origin).toBe(403);
    }
    // The loopback names are served.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await post(payload, { ...auth(), host })).status, host).toBe(200);
    }
  });

  it('answers 404 to another method or path, even with the token', async () => {
    const body = JSON.stringify(preToolUse(box.project, 'Read', { file_path: '/etc/hosts' }));
    expect((await send(port, { method: 'GET', headers: auth() })).status).toBe(404);
    expect((await send(port, { method: 'PUT', headers: auth(), body })).status).toBe(404);
    expect((await send(port, { path: '/hooks/other', headers: auth(), body })).status).toBe(404);
    expect((await send(port, { path: '/', headers: auth(), body })).status).toBe(404);
  });

  it('answers a body that is not JSON with a 200 deny: it may be a tool call, and a 400 would let it run', async () => {
    for (const body of ['{not json', '', 'null,']) {
      const reply = await send(port, { headers: auth(), body });
      expect(reply.status, JSON.stringify(body)).toBe(200);
      expect((JSON.parse(reply.body!) as Deny).hookSpecificOutput.permissionDecision).toBe('deny');
    }
  });

  it('answers 400 to a broken body that names another event: a prompt is never blocked', async () => {
    const reply = await send(port, { headers: auth(), body: '{"hook_event_name":"UserPromptSubmit","prompt":"cut' });
    expect(reply.status).toBe(400);
  });

  it('answers a body over 64 MiB with a 200 deny (a 413 would let the tool run) and keeps serving', async () => {
    const big = Buffer.alloc(64 * 1024 * 1024 + 1, 'a');
    const reply = await send(port, { headers: auth(), body: big });
    expect(reply.status).toBe(200);
    expect((JSON.parse(reply.body!) as Deny).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('over 64 MiB') });
    expect((await post(preToolUse(box.project, 'Read', { file_path: '/etc/hosts' }))).status).toBe(200);
    expect((await socket.request({ id: nextId++, op: 'ping' })).result).toMatchObject({ version: expect.any(String) });
  });

  it('serves two requests on one keep-alive connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const payload = preToolUse(box.project, 'Read', { file_path: '/etc/hosts' });
      const first = await post(payload, auth(), agent);
      const second = await post(payload, auth(), agent);
      expect(first).toMatchObject({ status: 200, body: '{}', reusedSocket: false });
      expect(second).toMatchObject({ status: 200, body: '{}', reusedSocket: true });
    } finally {
      agent.destroy();
    }
  });

  it('listens on 127.0.0.1 only', async () => {
    expect(await tcpConnect('127.0.0.1', port)).toBe('connected');
    expect(await tcpConnect('::1', port)).not.toBe('connected');
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  // Skipped only on a machine with no non-loopback IPv4 address (nothing to connect to).
  it.skipIf(external === undefined)(`refuses connections on the machine's non-loopback address (${external ?? 'none on this machine'})`, async () => {
    expect(await tcpConnect(external!, port)).toBe('ECONNREFUSED');
  });

  it('comes back, with the same token, when the daemon restarts', async () => {
    socket.close();
    expect(await daemon.stop()).toBe(0);
    daemon = await startDaemon(box);
    socket = await RawClient.connect(box.socket);
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const listening = await daemon.waitForLog((l) => l.msg === 'HTTP hook endpoint listening');
    expect(listening.url).toBe(`http://127.0.0.1:${port}/hooks/claude`);
    const ownFile = preToolUse(box.project, 'Read', { file_path: join(box.data, 'http-token') });
    const reply = await post(ownFile);
    expect(reply.status).toBe(200);
    expect((JSON.parse(reply.body!) as Deny).hookSpecificOutput.permissionDecision).toBe('deny');
    expect((await post(ownFile, { authorization: 'Bearer nope' })).status).toBe(401);
  });
});
