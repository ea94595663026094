// The audit page's server (`recap ui`): the page's files and its read-only JSON, on
// 127.0.0.1 only. A browser is let in once with the token in the address (`recap ui` prints
// it), which it trades for a session in an HttpOnly cookie, as Jupyter does; every other
// request needs that cookie, a loopback Host (against DNS rebinding) and, when it names
// one, the page's own Origin. The session is not the token and lives as long as the daemon:
// a cookie, which browsers send to every port of 127.0.0.1, gives nothing that outlasts it.
// Nothing served here changes the gate: GET and HEAD are the only methods.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { digest, listenOnLoopback } from './loopback.js';
import { UiRequestError, type LiveChange, type UiApi } from './uiApi.js';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];
/** Changes are told at most this often on /api/live. */
const LIVE_EVERY_MS = 250;
/** A comment on /api/live this often keeps proxies and the browser from dropping it. */
const KEEPALIVE_MS = 15_000;
const MAX_CONNECTIONS = 64;
/** Browsers signed in at once; the oldest session ends past this. */
const MAX_SESSIONS = 32;

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export class UiServer {
  private readonly server: Server;
  private readonly expected: Buffer;
  /** Digests of the sessions' cookies, oldest first. */
  private readonly sessions = new Set<string>();
  private port = 0;

  constructor(
    private readonly api: UiApi,
    private readonly token: string,
    /** The folder the page's bundle is in (dist/ui). */
    private readonly assets: URL,
    private readonly log: Logger,
  ) {
    this.expected = digest(token);
    this.server = createServer((req, res) => {
      this.serve(req, res).catch((error: unknown) => {
        if (error instanceof UiRequestError) return json(res, error.status, { error: error.message });
        this.log.error({ err: error, url: req.url }, 'an audit page request failed');
        if (!res.headersSent) json(res, 500, { error: 'recap could not answer this request; its daemon log has why (recap status --daemon names it)' });
        else res.destroy();
      });
    });
    this.server.maxConnections = MAX_CONNECTIONS;
    this.server.headersTimeout = 5_000;
    this.server.requestTimeout = 0; // /api/live stays open
  }

  async listen(port: number): Promise<number> {
    this.port = await listenOnLoopback(this.server, port);
    return this.port;
  }

  url(): string {
    return `http://127.0.0.1:${this.port}/?token=${this.token}`;
  }

  close(): Promise<void> {
    // Live streams never end by themselves.
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private get cookieName(): string {
    // Browsers share cookies across a host's ports: the name keeps two users' (or two
    // daemons') pages from overwriting each other's.
    return `recap_ui_${this.port}`;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('content-security-policy', CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('cache-control', 'no-store');
    const refused = this.refusal(req);
    if (refused) return text(res, refused.status, refused.message);
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${this.port}`);
    const given = url.searchParams.get('token');
    if (url.pathname === '/' && given !== null) {
      if (!this.matches(given)) return text(res, 401, "This link's token is not the audit page's: run `recap ui` for the current link.");
      res.setHeader('set-cookie', `${this.cookieName}=${this.newSession()}; HttpOnly; SameSite=Strict; Path=/`);
      res.writeHead(303, { location: '/' });
      return void res.end();
    }
    if (!this.signedIn(cookie(req.headers.cookie, this.cookieName))) {
      if (url.pathname.startsWith('/api/')) return json(res, 401, { error: 'not signed in: open the link `recap ui` prints' });
      return text(res, 401, "recap's audit page needs its token: run `recap ui` and open the link it prints.");
    }
    if (url.pathname === '/') return this.file(res, 'index.html');
    if (url.pathname.startsWith('/assets/')) return this.file(res, url.pathname.slice('/assets/'.length));
    if (url.pathname === '/api/live') return this.live(req, res);
    if (url.pathname.startsWith('/api/')) return json(res, 200, await this.api.answer(url.pathname, url.searchParams));
    return json(res, 404, { error: `nothing is served at ${url.pathname}` });
  }

  private refusal(req: IncomingMessage): { status: number; message: string } | undefined {
    const allowed = LOOPBACK_HOSTS.map((host) => `${host}:${this.port}`);
    if (!allowed.includes(req.headers.host ?? '')) return { status: 403, message: 'only http://127.0.0.1 is served' };
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.some((host) => origin === `http://${host}`)) return { status: 403, message: 'requests from other sites are refused' };
    if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, message: 'the audit page is read-only: GET only' };
    return undefined;
  }

  private matches(given: string): boolean {
    return timingSafeEqual(digest(given), this.expected);
  }

  private newSession(): string {
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(digest(session).toString('hex'));
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.values().next().value!);
    return session;
  }

  /** A session this daemon made (looked up by digest: a lookup's timing says nothing of the cookie). */
  private signedIn(session: string | undefined): boolean {
    return session !== undefined && this.sessions.has(digest(session).toString('hex'));
  }

  private async file(res: ServerResponse, name: string): Promise<void> {
    if (!/^[\w][\w.-]*$/.test(name)) return json(res, 404, { error: 'no such file' });
    const dot = name.lastIndexOf('.');
    const type = TYPES[name.slice(dot)];
    if (dot < 0 || type === undefined) return json(res, 404, { error: 'no such file' });
    let body: Buffer;
    try {
      body = await readFile(new URL(name, this.assets));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (name === 'index.html') {
        return text(res, 500, `The audit page's files are missing from ${this.assets.pathname}: reinstall recap (from a clone: npm run build).`);
      }
      return json(res, 404, { error: 'no such file' });
    }
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  }

  /** Server-sent events: which jobs changed, at most every LIVE_EVERY_MS. */
  private async live(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end();
    }
    let closed = false;
    const stops: (() => void)[] = [];
    req.once('close', () => {
      closed = true;
      for (const stop of stops) stop();
    });
    await this.api.ready();
    if (closed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
    res.write(`retry: 1000\n\n`);
    let pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      const jobs = [...pending];
      pending = new Set();
      const change: LiveChange = { lastSeq: this.api.lastSeq(), jobs };
      res.write(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
    };
    const unsubscribe = this.api.onChange((jobs) => {
      for (const job of jobs) pending.add(job);
      timer ??= setTimeout(flush, LIVE_EVERY_MS);
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    stops.push(
      unsubscribe,
      () => clearInterval(keepalive),
      () => clearTimeout(timer),
    );
  }
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const bytes = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(bytes) });
  res.end(bytes);
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
  res.end(message);
}
