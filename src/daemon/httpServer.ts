// The HTTP hook endpoint: Claude Code's `type: "http"` hooks POST their JSON here. It
// listens on 127.0.0.1 only, wants the bearer token from a 0600 file, refuses a Host that
// is not loopback and any request a browser made (an Origin header), and hands the payload
// to the same handler as the socket.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Handler } from './handler.js';
import { parseJson } from '../common/json.js';

export const HOOK_PATH = '/hooks/claude';
const MAX_BODY = 1024 * 1024;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The endpoint's token, made on first use and kept in a file only the user can read. */
export function ensureToken(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
}

const digest = (value: string) => hash('sha256', value, 'buffer');

export class HttpEndpoint {
  private readonly server: Server;
  private readonly expected: Buffer;

  constructor(
    private readonly handler: Handler,
    token: string,
    private readonly log: Logger,
  ) {
    // Compared as digests: equal lengths for timingSafeEqual, whatever the client sends.
    this.expected = digest(`Bearer ${token}`);
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 5_000;
    this.server.keepAliveTimeout = 30_000;
  }

  listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port, host: '127.0.0.1' }, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  close(): Promise<void> {
    this.server.closeIdleConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = this.refusal(req);
    if (refusal) return reply(res, refusal.status, { error: refusal.message });
    let body: string;
    try {
      body = await readBody(req);
    } catch (error) {
      // Answer, then drop the connection: the rest of the body is not worth reading.
      res.once('finish', () => req.socket.destroy());
      res.setHeader('connection', 'close');
      return reply(res, 413, { error: (error as Error).message });
    }
    let payload: unknown;
    try {
      payload = parseJson(body);
    } catch {
      return reply(res, 400, { error: 'the body is not valid JSON' });
    }
    const response = await this.handler.handle({ id: 'http', op: 'hook', agent: 'claude', payload });
    if ('error' in response) {
      this.log.warn({ error: response.error }, 'HTTP hook request failed');
      return reply(res, 500, { error: response.error.message });
    }
    const answer = response.result as { stdout: string };
    send(res, 200, answer.stdout === '' ? '{}' : answer.stdout);
  }

  private refusal(req: IncomingMessage): { status: number; message: string } | undefined {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_HOSTS.has(host)) return { status: 403, message: 'only loopback hosts are served' };
    if (req.headers.origin !== undefined) return { status: 403, message: 'requests from browsers are refused' };
    const given = digest(req.headers.authorization ?? '');
    if (!timingSafeEqual(given, this.expected)) return { status: 401, message: 'a valid bearer token is required' };
    if (req.method !== 'POST' || req.url !== HOOK_PATH) return { status: 404, message: `POST ${HOOK_PATH} is the only endpoint` };
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body));
}

/** With its length, the answer leaves in one write (without, it would be sent in chunks). */
function send(res: ServerResponse, status: number, json: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.removeAllListeners('data');
        req.pause();
        reject(new Error(`the body is over ${MAX_BODY} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
