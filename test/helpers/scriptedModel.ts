// What the scripted model servers for Codex, Gemini CLI and Qwen Code share: a list of turns
// (call a tool, or answer with text) handed out one per model request, every request
// recorded, side calls answered without touching the script, and the tool results the agent
// sends back made readable. Each wire format lives in its own file (mockOpenAIResponses.ts,
// mockGemini.ts, mockOpenAIChat.ts); this one only knows HTTP on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './requestBody.js';

/**
 * One scripted model turn: call a tool, or answer with text and end the turn. `input` is the
 * tool's arguments, or a string for a free-form tool (Codex's apply_patch).
 */
export type Turn = { tool: string; input: Record<string, unknown> | string } | { text: string };
/** A turn decided when its request arrives, from what the model was shown (a deny reason, say). */
export type LateTurn = (request: RecordedRequest) => Turn | Promise<Turn>;

export const callTool = (tool: string, input: Record<string, unknown> | string): Turn => ({ tool, input });
export const answer = (text: string): Turn => ({ text });

export type RecordedRequest = {
  /** 1-based, in arrival order. */
  n: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: string;
  /** The parsed JSON body, if it was JSON; each mock reads it with its own type. */
  body?: unknown;
  /** `turn` took a scripted turn; `side` is the agent's own business (titles, suggestions, compaction). */
  kind: 'turn' | 'side' | 'other';
  /** For `turn`: the index of the scripted turn it was answered with (-1 when the script had run out). */
  turn?: number;
};

/** A tool's result as the agent sent it back in a later request. */
export type ToolResult = { callId: string; text: string; isError: boolean; request: number };

/** How one wire format reads requests and writes answers. */
export type Dialect = {
  /** Whether a POST to `path` with this body wants a scripted turn, a side answer, or is unknown. */
  classify(path: string, body: unknown): RecordedRequest['kind'];
  /** The tool names the request offers the model. */
  tools(body: unknown): string[];
  /** Writes `turn` as the agent's API would stream it; `callId` names a tool call. */
  respond(res: ServerResponse, body: unknown, turn: Turn, callId: string, n: number): void;
  /** The tool results a request carries, oldest first. */
  toolResults(body: unknown): Omit<ToolResult, 'request'>[];
  /** The last message of a request, as text, for failure messages. */
  lastText(body: unknown): string;
};

const SIDE_ANSWER = 'Scripted session';
const EXHAUSTED_ANSWER = 'The mock model has no scripted turn left.';

export class ScriptedModel {
  readonly requests: RecordedRequest[] = [];
  /** What the mock did not expect (unknown paths, bad JSON, the script running out, a tool not offered). */
  readonly unexpected: string[] = [];
  private readonly turns: (Turn | LateTurn)[] = [];
  private next = 0;
  private waiters: { ready: () => boolean; resolve: () => void }[] = [];
  private port = 0;
  private readonly server: Server;

  protected constructor(private readonly dialect: Dialect) {
    this.server = createServer((req, res) => void this.serve(req, res));
  }

  protected async listen(turns: (Turn | LateTurn)[]): Promise<void> {
    this.script(...turns);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** http://127.0.0.1:PORT, with no path: each agent adds its own (`/v1` or none). */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Appends turns to the script. */
  script(...turns: (Turn | LateTurn)[]): void {
    this.turns.push(...turns);
  }

  get turnsTaken(): number {
    return this.next;
  }

  get turnRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'turn');
  }

  /** The call id the mock gave scripted turn `index` (a tool call). */
  callId(index: number): string {
    return `call_mock_${index}`;
  }

  /** Every tool result the agent sent back, once each, in the order they first appeared. */
  toolResults(): ToolResult[] {
    const seen = new Map<string, ToolResult>();
    for (const request of this.requests) {
      for (const result of this.dialect.toolResults(request.body)) {
        if (!seen.has(result.callId)) seen.set(result.callId, { ...result, request: request.n });
      }
    }
    return [...seen.values()];
  }

  /** The result the agent sent back for scripted turn `index`, if a request carried it. */
  toolResult(index: number): ToolResult | undefined {
    return this.toolResults().find((r) => r.callId === this.callId(index));
  }

  /** The newest tool result a request carries: what the model last saw of a tool. */
  lastToolResult(request: RecordedRequest | undefined = this.requests.at(-1)): ToolResult | undefined {
    const result = request ? this.dialect.toolResults(request.body).at(-1) : undefined;
    return result && { ...result, request: request!.n };
  }

  /** Resolves once `count` scripted turns have been answered. */
  turnsAnswered(count: number): Promise<void> {
    return this.until(() => this.next >= count);
  }

  /** A summary of every request, for failure messages. */
  describe(): string {
    return this.requests
      .map((r) => {
        const tail = (r.body === undefined ? r.raw : this.dialect.lastText(r.body)).replace(/\s+/g, ' ').slice(0, 160);
        const what = r.kind === 'turn' ? `turn ${r.turn}` : r.kind;
        return `#${r.n} ${r.method} ${r.url} [${what}] tools=${r.body === undefined ? 0 : this.dialect.tools(r.body).length} last=${JSON.stringify(tail)}`;
      })
      .concat(this.unexpected.map((u) => `unexpected: ${u}`))
      .join('\n');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ ready, resolve }));
  }

  private record(request: RecordedRequest): void {
    this.requests.push(request);
    // Woken after the answer is on its way, so a waiter sees a complete record.
    setImmediate(() => {
      this.waiters = this.waiters.filter((w) => {
        if (!w.ready()) return true;
        w.resolve();
        return false;
      });
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const request: RecordedRequest = { n: this.requests.length + 1, method: req.method ?? '?', url, headers: req.headers, raw: '', kind: 'other' };
    try {
      request.raw = await readBody(req);
      if (request.raw !== '') {
        try {
          request.body = JSON.parse(request.raw);
        } catch {
          this.unexpected.push(`request #${request.n} ${url}: the body is not JSON`);
        }
      }
      request.kind = req.method === 'POST' && request.body !== undefined ? this.dialect.classify(path, request.body) : 'other';
      if (request.kind === 'other') {
        this.record(request);
        this.unexpected.push(`${request.method} ${url} (answered 404)`);
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end('{"error":{"message":"not scripted"}}');
      }
      if (request.kind === 'side') {
        this.record(request);
        return this.dialect.respond(res, request.body, { text: SIDE_ANSWER }, 'call_side', request.n);
      }
      const index = this.next < this.turns.length ? this.next++ : -1;
      request.turn = index;
      if (index === -1) this.unexpected.push(`request #${request.n} wanted a turn but the script has run out`);
      const scripted = index === -1 ? { text: EXHAUSTED_ANSWER } : this.turns[index]!;
      const turn = typeof scripted === 'function' ? await scripted(request) : scripted;
      if ('tool' in turn && !this.dialect.tools(request.body).includes(turn.tool)) {
        this.unexpected.push(`request #${request.n}: scripted tool ${turn.tool} is not among the offered tools (${this.dialect.tools(request.body).join(', ')})`);
      }
      this.record(request);
      this.dialect.respond(res, request.body, turn, this.callId(index), request.n);
    } catch (error) {
      this.unexpected.push(`${request.method} ${url}: the mock failed: ${(error as Error).stack}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"mock failure"}}');
    }
  }
}

/** Writes one server-sent event; `event` is the SSE event name, when the format has one. */
export function sendEvent(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export function startStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}
