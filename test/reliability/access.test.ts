// Access: another user cannot connect to the socket (a client run as `nobody` with
// setpriv), and the HTTP endpoint refuses a missing or wrong token, a non-loopback Host and
// a browser Origin.
import { execFile } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { call, enableHttp } from './harness.js';

const asRoot = process.getuid?.() === 0;

/** Runs node as nobody, connecting to `path`; resolves with 'connected' or the error code. */
function connectAsNobody(path: string): Promise<string> {
  const script = `const s=require('net').connect(process.argv[1]);s.on('connect',()=>{console.log('connected');s.destroy()});s.on('error',e=>console.log(e.code))`;
  return new Promise((resolve) => {
    execFile('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', script, path], { timeout: 10_000 }, (error, stdout, stderr) =>
      resolve(stdout.trim() || `failed: ${error?.message} ${stderr}`),
    );
  });
}

describe.runIf(asRoot)('another user at the socket', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    // Let nobody reach the socket's folder, so only recap's own modes stand in its way.
    chmodSync(box.dir, 0o711);
    chmodSync(dirname(dirname(box.socket)), 0o711);
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
  });

  it('makes the socket 0600 in a 0700 folder', () => {
    expect(statSync(box.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(box.socket)).mode & 0o777).toBe(0o700);
  });

  it('refuses nobody at the 0700 folder', async () => {
    expect(await connectAsNobody(box.socket)).toBe('EACCES');
  });

  it('refuses nobody at the 0600 socket even when the folder lets it through', async () => {
    chmodSync(dirname(box.socket), 0o711);
    try {
      expect(await connectAsNobody(box.socket)).toBe('EACCES');
    } finally {
      chmodSync(dirname(box.socket), 0o700);
    }
  });

  it('serves its owner all the while', async () => {
    const client = await RawClient.connect(box.socket);
    expect((await call(client, 'ping')).result).toMatchObject({ version: expect.any(String) });
    client.close();
  });
});

function send(port: number, headers: Record<string, string>, body = '{}', path = '/hooks/claude'): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  });
}

describe('the HTTP endpoint refuses strangers', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let port: number;
  let token: string;

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box, { RECAP_HTTP_PORT: '0' });
    const http = await enableHttp(box.socket);
    ({ port, token } = http);
    expect(statSync(http.tokenFile).mode & 0o777).toBe(0o600);
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
  });

  const payload = () => JSON.stringify({ session_id: 's', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/etc/hosts' } });

  it('answers 200 with the token, a loopback Host and no Origin', async () => {
    expect(await send(port, { authorization: `Bearer ${token}` }, payload())).toBe(200);
  });

  it('refuses a missing, empty, wrong or near-miss token with 401', async () => {
    for (const authorization of [undefined, '', 'Bearer', `Bearer ${token}x`, `Bearer ${token.slice(1)}`, `bearer ${token}`, token, `Basic ${token}`]) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      expect(await send(port, headers, payload()), String(authorization)).toBe(401);
    }
  });

  it('refuses a non-loopback Host with 403, even with the token', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example', '10.0.0.1', 'localhost.evil']) {
      expect(await send(port, { authorization: `Bearer ${token}`, host }, payload()), host).toBe(403);
    }
  });

  it('refuses an empty Host and a missing Host (raw HTTP/1.1)', async () => {
    const raw = (head: string) =>
      new Promise<string>((resolve) => {
        const body = payload();
        const socket = connect({ host: '127.0.0.1', port });
        let answer = '';
        socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
        socket.once('close', () => resolve(answer.split('\r\n')[0]!));
        socket.once('error', () => resolve('error'));
        socket.end(
          `POST /hooks/claude HTTP/1.1\r\n${head}Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    expect(await raw('Host: \r\n')).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await raw('')).toMatch(/^HTTP\/1\.1 4\d\d/);
  });

  it('refuses any browser Origin with 403, even with the token', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port}`, 'null', 'http://localhost']) {
      expect(await send(port, { authorization: `Bearer ${token}`, origin }, payload()), origin).toBe(403);
    }
  });

  it('records nothing for a refused request', async () => {
    const client = await RawClient.connect(box.socket);
    const before = ((await call(client, 'events', { fromSeq: 1, limit: 10_000 })).result as { lastSeq: number }).lastSeq;
    const prompt = JSON.stringify({ session_id: 's', cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'sneaky prompt' });
    expect(await send(port, {}, prompt)).toBe(401);
    expect(await send(port, { authorization: `Bearer ${token}`, origin: 'http://evil.example' }, prompt)).toBe(403);
    const after = ((await call(client, 'events', { fromSeq: 1, limit: 10_000 })).result as { lastSeq: number }).lastSeq;
    client.close();
    expect(after).toBe(before);
  });
});
