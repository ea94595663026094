// The HTTP hook endpoint: Claude Code's `type: "http"` hooks POST their JSON here. It
// listens on 127.0.0.1 only, wants the bearer token from a 0600 file, refuses a Host that
// is not loopback and any request a browser made (an Origin header), and hands the payload
// to the same handler as the socket.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Handler } from './handler.js';
import { digest, listenOnLoopback } from './loopback.js';
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { parseJson } from '../common/json.js';
import { truncatedPrompt } from '../common/truncatedPrompt.js';
import { eventIn, HEAD_BYTES, MAX_HELD_BYTES, readBody } from './hookBody.js';
import { classifyBash } from '../events/whitelist.js';
import { claudeFacts } from '../agents/claude/facts.js';

export const HOOK_PATH = '/hooks/claude';
const MAX_BODY = MAX_HOOK_PAYLOAD;
/** Inside the 10 s timeout `recap install --http` gives the hook: past it, the answer is made here. */
const ANSWER_DEADLINE_MS = 8000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export class HttpEndpoint {
  private readonly server: Server;
  private readonly expected: Buffer;
  /** Bytes of bodies being read now, across requests. */
  private readonly held = { bytes: 0 };

  constructor(
    private readonly handler: Handler,
    token: string,
    private readonly log: Logger,
    /** The real recap's paths, to let the way out through when no decision comes. */
    private readonly recapPaths: ReadonlySet<string>,
  ) {
    // Compared as digests: equal lengths for timingSafeEqual, whatever the client sends.
    this.expected = digest(`Bearer ${token}`);
    this.server = createServer((req, res) => {
      this.serve(req, res).catch((error: unknown) => {
        // A bug, not the request's fault; the answer still goes the safe way.
        this.log.error({ err: error }, 'an HTTP hook request failed');
        if (!res.headersSent) this.failed(res, undefined, 500, 'recap could not answer this hook request', 'run `recap doctor`');
      });
    });
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 5_000;
    this.server.keepAliveTimeout = 30_000;
  }

  /** Listens on 127.0.0.1; a port another program holds is a PortBusy. */
  listen(port: number): Promise<number> {
    return listenOnLoopback(this.server, port);
  }

  close(): Promise<void> {
    this.server.closeIdleConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Claude Code takes anything but a 200 with a JSON body as a failed hook, which lets the
   * tool run unless `onFailure: "block"`: every failure a PreToolUse (or a request of no
   * known event) can meet here (too large, not JSON, a broken body, the handler failing or
   * too slow, a bug) is answered as a 200 deny instead; the way out still passes.
   */
  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = this.refusal(req);
    if (refusal) return reply(res, refusal.status, { error: refusal.message });
    const body = await readBody(req, this.held);
    if (body.kind === 'failed') return this.failed(res, undefined, 400, body.why, 'try again');
    if (body.kind === 'busy') {
      res.setHeader('connection', 'close');
      const why = `the daemon is holding ${describeBytes(MAX_HELD_BYTES)} of hook requests already`;
      return this.failed(res, eventIn(body.head), 503, why, 'try again in a moment');
    }
    let payload: unknown;
    let note: string | undefined;
    if (body.kind === 'oversized') {
      res.setHeader('connection', 'close');
      const event = eventIn(body.head);
      // A prompt is counted as far as the limit; anything else this large is refused.
      payload = event === 'UserPromptSubmit' ? truncatedPrompt(body.prefix) : undefined;
      if (payload === undefined) {
        const why = `the hook request is over ${describeBytes(MAX_BODY)}, the most recap judges`;
        return this.failed(res, event, 413, why, 'split the work into smaller calls (a large file as several Writes or Edits)');
      }
      note = `recap: this prompt is over ${describeBytes(MAX_BODY)}; its first ${describeBytes(MAX_BODY)} were counted`;
    } else {
      try {
        payload = parseJson(body.text);
      } catch {
        return this.failed(res, eventIn(body.text.slice(0, HEAD_BYTES)), 400, 'the hook request is not valid JSON', 'run `recap doctor`');
      }
    }
    const event = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
    const named = typeof event === 'string' ? event : undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ANSWER_DEADLINE_MS)));
    const response = await Promise.race([this.handler.handle({ id: 'http', op: 'hook', agent: 'claude', payload }), late]);
    clearTimeout(timer);
    if (response === 'late') {
      this.log.warn({ event: named }, `an HTTP hook request got no decision within ${ANSWER_DEADLINE_MS} ms`);
      if (this.isWayOut(payload)) return send(res, 200, '{}');
      return this.failed(res, named, 503, `the daemon could not decide within ${ANSWER_DEADLINE_MS / 1000} s`, 'try again in a moment');
    }
    if ('error' in response) {
      this.log.warn({ error: response.error }, 'HTTP hook request failed');
      if (this.isWayOut(payload)) return send(res, 200, '{}');
      return this.failed(res, named, 500, response.error.message, 'run `recap doctor`');
    }
    const answer = response.result as { stdout: string };
    send(res, 200, withNote(answer.stdout === '' ? '{}' : answer.stdout, note));
  }

  /** A failure: a deny for a tool call (or a request of no known event), else the error status. */
  private failed(res: ServerResponse, event: string | undefined, status: number, why: string, advice: string): void {
    if (event !== undefined && event !== 'PreToolUse') return reply(res, status, { error: why });
    send(res, 200, claudeFacts.deny(`recap: ${why}, so this tool call was denied: ${advice}.`).stdout);
  }

  /** A shell call that is exactly a whitelisted recap command. */
  private isWayOut(payload: unknown): boolean {
    const p = payload as { tool_name?: unknown; tool_input?: unknown } | null;
    const call = claudeFacts.toolCall(typeof p?.tool_name === 'string' ? p.tool_name : '', p?.tool_input);
    return call.kind === 'shell' && typeof call.command === 'string' && classifyBash(call.command, this.recapPaths).allowed;
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

/** The JSON answer with a message for the user added (when it has none of its own). */
function withNote(json: string, note: string | undefined): string {
  if (note === undefined) return json;
  try {
    const output = JSON.parse(json) as Record<string, unknown>;
    if (output !== null && typeof output === 'object' && !Array.isArray(output) && output.systemMessage === undefined) return JSON.stringify({ ...output, systemMessage: note });
  } catch {
    // Not an object: left as it is.
  }
  return json;
}
