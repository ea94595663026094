// The endpoint of recap's hook launcher (bin/recap-hook.sh): HTTP on a Unix socket of its own
// beside the main one, so that a hook call costs a `sh` and a `curl`, not a Node start. The
// launcher POSTs the agent's payload to /hook/v1/<agent> and prints what comes back; it hands
// the call to recap-hook only while stdin is unread (no connection, or a daemon too stuck to
// say 100 Continue), so everything recap-hook would decide from the payload is decided here,
// the same way: an input that cannot
// be judged is refused (a tool call denied, a prompt let through with a notice), a prompt over
// the size limit is counted as far as it goes, and a daemon that fails or is too slow answers
// as recap-hook does when the daemon answers with an error (the way out still passes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { describeBytes, MAX_HOOK_PAYLOAD } from '../common/frames.js';
import { parseJson } from '../common/json.js';
import { truncatedPrompt } from '../common/truncatedPrompt.js';
import { AGENT_FACTS, isAgentName, type AgentName } from '../agents/known.js';
import { refusal, withNotice, type AgentFacts, type HookAnswer } from '../agents/facts.js';
import { daemonFailed } from '../client/hookFallback.js';
import type { Handler } from './handler.js';
import { SocketKeeper } from './socketKeeper.js';
import { newPromptId } from '../common/promptSpool.js';
import { eventIn, HEAD_BYTES, MAX_HELD_BYTES, readBody } from './hookBody.js';

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
    const answer = (a: HookAnswer) => reply(res, a);
    const body = await readBody(req, this.held);
    if (body.kind === 'failed') return answer(refusal(facts, undefined, body.why, unreadable(facts)));
    if (body.kind === 'busy') {
      const why = `the daemon is holding ${describeBytes(MAX_HELD_BYTES)} of hook requests already`;
      return answer(refusal(facts, eventIn(body.head), why, 'try again in a moment'));
    }
    let payload: Record<string, unknown> | undefined;
    let note: string | undefined;
    if (body.kind === 'oversized') {
      // As recap-hook: a prompt is counted as far as the limit; anything else this large is refused.
      const event = eventIn(body.head);
      payload = event !== undefined && facts.events[event] === 'prompt' ? truncatedPrompt(body.prefix) : undefined;
      if (payload === undefined) {
        const why = `the hook input is over ${describeBytes(MAX_HOOK_PAYLOAD)}, the most recap judges`;
        return answer(refusal(facts, event, why, 'split the work into smaller calls (a large file as several Writes or Edits)'));
      }
      note = `recap: this prompt is over ${describeBytes(MAX_HOOK_PAYLOAD)}; its first ${describeBytes(MAX_HOOK_PAYLOAD)} were counted`;
    } else {
      payload = objectIn(body.text);
      if (payload === undefined) {
        const why = whyUnusable(body.text);
        return answer(refusal(facts, eventIn(body.text.slice(0, HEAD_BYTES)), why, unreadable(facts)));
      }
    }
    const asked = Number(req.headers['x-recap-deadline-ms']);
    const deadline = Number.isFinite(asked) ? Math.min(ANSWER_DEADLINE_MS.max, Math.max(ANSWER_DEADLINE_MS.min, asked)) : ANSWER_DEADLINE_MS.default;
    const decided = await this.decide(facts, payload, deadline);
    answer(note !== undefined ? withNotice(facts, decided, note) : decided);
  }

  /** The daemon's answer, or, when it fails or is too slow, recap-hook's answer to a daemon that failed. */
  private async decide(facts: AgentFacts, payload: Record<string, unknown>, deadlineMs: number): Promise<HookAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
    // A prompt not recorded in time is kept in the spool, as recap-hook keeps it; its id has it recorded once.
    const event = payload.hook_event_name;
    const prompt = typeof event === 'string' && facts.events[event] === 'prompt' ? { id: newPromptId(), at: Date.now() } : undefined;
    const request = { id: 'launcher', op: 'hook', agent: facts.name, payload, ...(prompt !== undefined ? { promptId: prompt.id, promptAt: prompt.at } : {}) };
    const response = await Promise.race([this.handler.handle(request), late]);
    clearTimeout(timer);
    if (response === 'late') {
      this.log.warn({ agent: facts.name }, `a launcher hook request got no decision within ${deadlineMs} ms`);
      return daemonFailed(facts, payload, `no decision within ${deadlineMs / 1000} s`, prompt);
    }
    if ('error' in response) {
      this.log.warn({ error: response.error }, 'a launcher hook request failed');
      return daemonFailed(facts, payload, response.error.message, prompt);
    }
    return response.result as HookAnswer;
  }
}

const unreadable = (facts: AgentFacts) => `recap-hook could not read what ${facts.title} sent; if every call is denied this way, run \`recap doctor\``;

/** Said as recap-hook says it, which reads stdin a byte at a time. */
function whyUnusable(text: string): string {
  if (text === '') return 'the hook got no input';
  const first = /\S/.exec(text)?.[0];
  return first === undefined || first === '{' ? 'the hook input is not one complete JSON object' : 'the hook input is not a JSON object';
}

function objectIn(text: string): Record<string, unknown> | undefined {
  try {
    const value = parseJson(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The launcher prints everything after the first line and exits with the number on it. With
 * its length, so a cut answer is a failed curl, never a partial verdict.
 */
function reply(res: ServerResponse, answer: HookAnswer): void {
  const body = `${answer.exitCode}\n${answer.stdout}`;
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
