// The HTTP hook endpoint: an agent's `type: "http"` hooks POST their JSON to /hooks/<agent>
// (the agents src/agents/hookRoutes.ts names). It listens on 127.0.0.1 only, wants the bearer
// token from a 0600 file, refuses a Host that is not loopback and any request a browser made
// (an Origin header), and hands the payload, judged by the hook ingress
// (src/hook/ingress.ts) as every hook's is, to the same handler as the socket.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Handler } from './handler.js';
import { digest, listenOnLoopback } from './loopback.js';
import { decideInTime, eventOf, hookRequest, judgeInput, refusedAnswer, withNote, type Refused } from '../hook/ingress.js';
import { readBody } from '../hook/requestBody.js';
import { classifyBash } from '../events/whitelist.js';
import { AGENT_FACTS, type AgentName } from '../agents/known.js';
import { deniedUnjudged, refusal, type AgentFacts } from '../agents/facts.js';
import { HTTP_HOOK_AGENTS } from '../agents/hookRoutes.js';

/** The path an agent's HTTP hooks post to. */
export const hookPath = (agent: AgentName): string => `/hooks/${agent}`;
const HOOK_PATH = /^\/hooks\/([^/?#]*)$/;
/** Inside the 10 s timeout `recap install --http` gives the hook: past it, the answer is made here. */
const ANSWER_DEADLINE_MS = 8000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The status a hook of another event than a tool call gets for each cause of a refusal: an error, which never blocks it. */
const REFUSED_STATUS: Record<Refused['cause'], number> = { unreadable: 400, busy: 503, oversized: 413 };

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
        if (!res.headersSent) this.failed(res, factsOf(req), undefined, 500, 'recap could not answer this hook request', 'run `recap doctor`');
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
   * An agent takes anything but a 200 with a JSON body as a failed hook, which lets the
   * tool run unless `onFailure: "block"`: every failure a tool call (or a request of no
   * known event) can meet here (too large, not JSON, a broken body, the handler failing or
   * too slow, a bug) is answered as a 200 deny instead; the way out still passes.
   */
  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = this.route(req);
    if (!('facts' in route)) return reply(res, route.status, { error: route.message });
    const { facts } = route;
    const body = await readBody(req, this.held);
    if (body.kind === 'busy' || body.kind === 'oversized') res.setHeader('connection', 'close');
    const judged = judgeInput(facts, body);
    if (judged.refused !== undefined) return this.refused(res, facts, judged.refused);
    const { payload, note } = judged;
    const named = eventOf(payload);
    const decision = await decideInTime(this.handler.handle(hookRequest('http', facts, payload)), ANSWER_DEADLINE_MS);
    if (decision.kind === 'late') {
      this.log.warn({ event: named }, `an HTTP hook request got no decision within ${ANSWER_DEADLINE_MS} ms`);
      if (this.isWayOut(facts, payload)) return send(res, 200, '{}');
      return this.failed(res, facts, named, 503, `the daemon could not decide within ${ANSWER_DEADLINE_MS / 1000} s`, 'try again in a moment');
    }
    if (decision.kind === 'failed') {
      this.log.warn({ error: decision.error }, 'HTTP hook request failed');
      if (this.isWayOut(facts, payload)) return send(res, 200, '{}');
      return this.failed(res, facts, named, 500, decision.why, 'run `recap doctor`');
    }
    const answer = withNote(facts, decision.answer, note);
    send(res, 200, answer.stdout === '' ? '{}' : answer.stdout);
  }

  /** An input the ingress refused: the agent's deny for a tool call (or a request of no known event), an error status for anything else. */
  private refused(res: ServerResponse, facts: AgentFacts, refused: Refused): void {
    if (deniedUnjudged(facts, refused.event)) return send(res, 200, refusedAnswer(facts, refused).stdout);
    reply(res, REFUSED_STATUS[refused.cause], { error: refused.why });
  }

  /** A failure: a deny for a tool call (or a request of no known event), else the error status. */
  private failed(res: ServerResponse, facts: AgentFacts | undefined, event: string | undefined, status: number, why: string, advice: string): void {
    if (facts !== undefined && deniedUnjudged(facts, event)) return send(res, 200, refusal(facts, event, why, advice).stdout);
    reply(res, status, { error: why });
  }

  /** A shell call that is exactly a whitelisted recap command. */
  private isWayOut(facts: AgentFacts, payload: Record<string, unknown>): boolean {
    const call = facts.toolCall(typeof payload.tool_name === 'string' ? payload.tool_name : '', payload.tool_input);
    return call.kind === 'shell' && typeof call.command === 'string' && classifyBash(call.command, this.recapPaths).allowed;
  }

  /** The facts of the agent the request is for, or why it is refused. */
  private route(req: IncomingMessage): { facts: AgentFacts } | { status: number; message: string } {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_HOSTS.has(host)) return { status: 403, message: 'only loopback hosts are served' };
    if (req.headers.origin !== undefined) return { status: 403, message: 'requests from browsers are refused' };
    const given = digest(req.headers.authorization ?? '');
    if (!timingSafeEqual(given, this.expected)) return { status: 401, message: 'a valid bearer token is required' };
    const paths = HTTP_HOOK_AGENTS.map((agent) => `POST ${hookPath(agent)}`).join(', ');
    const agent = HOOK_PATH.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || agent === undefined) return { status: 404, message: `${paths} is the only endpoint` };
    const facts = factsOf(req);
    if (facts === undefined) return { status: 404, message: `no agent ${JSON.stringify(agent)} posts its hooks here; ${paths} is the only endpoint` };
    return { facts };
  }
}

/** The facts of the agent the request's path names, if it is one whose hooks post here. */
function factsOf(req: IncomingMessage): AgentFacts | undefined {
  const agent = HOOK_PATH.exec(req.url ?? '')?.[1];
  const known = HTTP_HOOK_AGENTS.find((name) => name === agent);
  return known === undefined ? undefined : AGENT_FACTS[known];
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body));
}

/** With its length, the answer leaves in one write (without, it would be sent in chunks). */
function send(res: ServerResponse, status: number, json: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
