// The endpoint of recap's hook launcher (bin/recap-hook.sh): HTTP on a Unix socket of its own
// beside the main one, so that a hook call costs a `sh` and a bare `perl` (or a `curl`), not
// a Node start. The launcher POSTs the agent's payload to /hook/v1/<agent> and prints what
// comes back; it hands the call to recap-hook only while stdin is unread (no connection, or a
// daemon too stuck to say 100 Continue), so everything recap-hook would decide from the
// payload is decided here, by the same hook ingress (src/hook/ingress.ts), and a daemon that
// fails or is too slow answers as recap-hook does when the daemon answers with an error (the
// way out still passes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AGENT_FACTS, isAgentName, type AgentName } from '../agents/known.js';
import type { AgentFacts, HookAnswer } from '../agents/facts.js';
import { daemonFailed } from '../hook/fallback.js';
import { decideInTime, hookRequest, judgeInput, promptMark, refusedAnswer, withNote } from '../hook/ingress.js';
import { readBody } from '../hook/requestBody.js';
import type { Handler } from './handler.js';
import { SocketKeeper } from './socketKeeper.js';

/** The path the launcher posts to; the version moves only if the answer's shape does. */
export const LAUNCHER_PATH = /^\/hook\/v1\/([a-z]+)$/;
/**
 * When the answer is made here if the daemon has not decided: the launcher says when
 * (X-Recap-Deadline-Ms, four fifths of the time it waits), within these bounds.
 */
const ANSWER_DEADLINE_MS = { default: 4000, min: 50, max: 6500 };
/** Hook calls in flight at once; each holds a connection for a few milliseconds. */
const MAX_CONNECTIONS = 256;

/** The agent a request is for, when it is one this endpoint answers. */
function agentOf(req: IncomingMessage): AgentName | undefined {
  const agent = LAUNCHER_PATH.exec(req.url ?? '')?.[1];
  return req.method === 'POST' && agent !== undefined && isAgentName(agent) ? agent : undefined;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' }).end('POST /hook/v1/<agent> is the only endpoint here\n');
}

export class LauncherEndpoint {
  /** Every server: the socket put back in its place (see SocketKeeper) is a new one, the old keeps its connections. */
  private readonly servers: Server[] = [];
  private keeper: SocketKeeper | undefined;
  /** Bytes of bodies being read now, across requests. */
  private readonly held = { bytes: 0 };

  constructor(
    private readonly handler: Handler,
    private readonly log: Logger,
    /** Told when another process's socket was found in place of the daemon's. */
    private readonly takenOver: (path: string) => void = () => undefined,
  ) {}

  private newServer(): Server {
    // A hook's connection lives for one call: one that sends no request soon goes, and past
    // MAX_CONNECTIONS new ones are closed at once (the launcher, its payload unsent, then hands
    // the call to recap-hook), so a flood here cannot use up the daemon's descriptors.
    const server = createServer({ requestTimeout: 10_000, headersTimeout: 2_000, keepAliveTimeout: 1_000, connectionsCheckingInterval: 500 }, (req, res) => this.answer(req, res));
    server.maxConnections = MAX_CONNECTIONS;
    // The launcher sends its payload only after 100 Continue: a request this endpoint cannot
    // take is refused before, and the launcher hands it to recap-hook with stdin unread.
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      if (agentOf(req) === undefined) return notFound(res);
      res.writeContinue();
      this.answer(req, res);
    });
    this.servers.push(server);
    return server;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.serve(req, res).catch((error: unknown) => {
      // A bug, not the request's fault: the connection drops, and the launcher denies the call (--lost).
      this.log.error({ err: error }, 'a launcher hook request failed');
      if (!res.headersSent) res.destroy();
    });
  }

  /**
   * Listens on `path` in the main socket's folder (0700), the socket made 0600. A socket file
   * already there is a dead daemon's (this one holds the log's lock); anything else is left
   * alone, and the launcher then hands every call to recap-hook.
   */
  listen(path: string): Promise<void> {
    const bind = (at: string) =>
      new Promise<void>((resolve, reject) => {
        const server = this.newServer();
        server.once('error', reject);
        server.listen({ path: at }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    this.keeper = new SocketKeeper(path, bind, this.log, "the hook launcher's socket file", this.takenOver);
    return this.keeper.start();
  }

  close(): Promise<void> {
    this.keeper?.close();
    for (const server of this.servers) server.closeIdleConnections();
    return Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))).then(() => undefined);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const agent = agentOf(req);
    if (agent === undefined) return notFound(res);
    const facts = AGENT_FACTS[agent];
    const judged = judgeInput(facts, await readBody(req, this.held));
    if (judged.refused !== undefined) return reply(res, refusedAnswer(facts, judged.refused));
    const asked = Number(req.headers['x-recap-deadline-ms']);
    const deadline = Number.isFinite(asked) ? Math.min(ANSWER_DEADLINE_MS.max, Math.max(ANSWER_DEADLINE_MS.min, asked)) : ANSWER_DEADLINE_MS.default;
    const decided = await this.decide(facts, judged.payload, deadline);
    reply(res, withNote(facts, decided, judged.note));
  }

  /** The daemon's answer, or, when it fails or is too slow, recap-hook's answer to a daemon that failed. */
  private async decide(facts: AgentFacts, payload: Record<string, unknown>, deadlineMs: number): Promise<HookAnswer> {
    // A prompt not recorded in time is kept in the spool, as recap-hook keeps it; its id has it recorded once.
    const prompt = promptMark(facts, payload);
    const decision = await decideInTime(this.handler.handle(hookRequest('launcher', facts, payload, prompt)), deadlineMs);
    if (decision.kind === 'answer') return decision.answer;
    if (decision.kind === 'late') this.log.warn({ agent: facts.name }, `a launcher hook request got no decision within ${deadlineMs} ms`);
    else this.log.warn({ error: decision.error }, 'a launcher hook request failed');
    return daemonFailed(facts, payload, decision.why, prompt);
  }
}

/**
 * The launcher prints everything after the first line and exits with the number on it. With
 * its length, so a cut answer is a failed exchange, never a partial verdict.
 */
function reply(res: ServerResponse, answer: HookAnswer): void {
  const body = `${answer.exitCode}\n${answer.stdout}`;
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
