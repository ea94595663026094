// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for running the real
// Claude Code CLI with no network. Each request that offers tools takes the next scripted
// turn (call a tool, or answer with text) and gets it back as a stream of server-sent
// events; requests that offer no tools (titles and other side calls) get a plain text
// answer and leave the script alone. Every request is recorded, so a test can read what the
// model was shown: the tool results (a hook's deny reason among them), the system prompt,
// the context hooks added.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './requestBody.js';

/**
 * One scripted model turn: call a tool with this input, or answer with text and end the turn;
 * `contextTokens`, the input tokens it reports (100 otherwise), drives Claude Code's context
 * accounting and its auto-compaction.
 */
export type Turn = ({ tool: string; input: Record<string, unknown> } | { text: string }) & { contextTokens?: number };
/**
 * A turn decided when its request arrives, from what the model was shown (the deny reason
 * of the last tool result, say); it may act first, as a user at the keyboard would.
 */
export type LateTurn = (request: RecordedRequest) => Turn | Promise<Turn>;

export const callTool = (tool: string, input: Record<string, unknown>): Turn => ({ tool, input });
export const bash = (command: string, description = 'run a command'): Turn => callTool('Bash', { command, description });
export const read = (file_path: string): Turn => callTool('Read', { file_path });
export const answer = (text: string): Turn => ({ text });

export type ContentBlock = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean };
export type Message = { role: string; content: string | ContentBlock[] };
export type MessagesBody = { model?: string; system?: unknown; messages?: Message[]; tools?: { name: string }[]; stream?: boolean };

export type RecordedRequest = {
  /** 1-based, in arrival order. */
  n: number;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The raw body, decoded. */
  raw: string;
  /** The parsed JSON body, if it was JSON. */
  body?: MessagesBody;
  /** What the mock made of it. */
  kind: 'turn' | 'side' | 'compaction' | 'count_tokens' | 'other';
  /** For `turn`: the index of the scripted turn it was answered with (-1 when the script had run out). */
  turn?: number;
  /** The Claude Code session the request belongs to (its x-claude-code-session-id header). */
  session?: string;
};

export type ToolResult = { toolUseId: string; text: string; isError: boolean; request: number };

const SIDE_ANSWER = 'Scripted session';
/** Claude's summary of a compacted conversation, as its compaction request asks for it. */
export const COMPACTION_ANSWER = '<analysis>The scripted session so far.</analysis>\n<summary>1. Primary Request: the scripted work, compacted by the mock.</summary>';

/** A compaction request: its last user message asks for a detailed summary of the conversation. */
function isCompaction(body: MessagesBody): boolean {
  const last = body.messages?.filter((m) => m.role === 'user').at(-1);
  return last !== undefined && /create a detailed summary of the conversation/i.test(contentText(last.content));
}
const EXHAUSTED_ANSWER = 'The mock model has no scripted turn left.';

/** The text of a message content: a string, or the text of its text blocks (nested too). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: ContentBlock) => {
      if (block === null || typeof block !== 'object') return '';
      if (typeof block.text === 'string') return block.text;
      if (block.content !== undefined) return contentText(block.content);
      return '';
    })
    .join('\n');
}

export class MockAnthropic {
  readonly requests: RecordedRequest[] = [];
  /** Requests the mock did not expect (unknown paths, bad JSON, the script running out): for debugging. */
  readonly unexpected: string[] = [];
  private readonly turns: (Turn | LateTurn)[] = [];
  private next = 0;
  private readonly toolUseIds = new Map<number, string>();
  private waiters: { ready: () => boolean; resolve: () => void }[] = [];
  private port = 0;

  private constructor(private readonly server: Server) {}

  static async start(turns: (Turn | LateTurn)[] = []): Promise<MockAnthropic> {
    const server = createServer();
    const mock = new MockAnthropic(server);
    mock.script(...turns);
    server.on('request', (req, res) => void mock.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host: '127.0.0.1' }, () => resolve());
    });
    mock.port = (server.address() as AddressInfo).port;
    return mock;
  }

  /** ANTHROPIC_BASE_URL for Claude Code. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Appends turns to the script. */
  script(...turns: (Turn | LateTurn)[]): void {
    this.turns.push(...turns);
  }

  /** How many scripted turns have been answered. */
  get turnsTaken(): number {
    return this.next;
  }

  /** The requests that took a scripted turn (the model's main loop), in order. */
  get turnRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'turn');
  }

  /** The id of the tool_use block the mock sent for scripted turn `index`. */
  toolUseId(index: number): string | undefined {
    return this.toolUseIds.get(index);
  }

  /** The tool result Claude Code sent back for scripted turn `index` (a tool call), if any request carried it. */
  toolResult(index: number): ToolResult | undefined {
    const id = this.toolUseIds.get(index);
    if (id === undefined) return undefined;
    for (const request of this.requests) {
      for (const message of request.body?.messages ?? []) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content) {
          if (block?.type === 'tool_result' && block.tool_use_id === id) {
            return { toolUseId: id, text: contentText(block.content), isError: block.is_error === true, request: request.n };
          }
        }
      }
    }
    return undefined;
  }

  /** The text of the newest tool result a request carries: what the model last saw of a tool. */
  static lastToolResult(request: RecordedRequest): ToolResult | undefined {
    const messages = request.body?.messages ?? [];
    for (let m = messages.length - 1; m >= 0; m -= 1) {
      const content = messages[m]!.content;
      if (!Array.isArray(content)) continue;
      const block = content.findLast((b) => b?.type === 'tool_result');
      if (block) return { toolUseId: block.tool_use_id ?? '', text: contentText(block.content), isError: block.is_error === true, request: request.n };
    }
    return undefined;
  }

  /** Resolves once the mock has received `count` requests of the kinds given (all kinds by default). */
  received(count: number, kinds: RecordedRequest['kind'][] = ['turn', 'side', 'count_tokens', 'other']): Promise<void> {
    return this.until(() => this.requests.filter((r) => kinds.includes(r.kind)).length >= count);
  }

  /** Resolves once `count` scripted turns have been answered. */
  turnsAnswered(count: number): Promise<void> {
    return this.until(() => this.next >= count);
  }

  /** A summary of every request, for failure messages. */
  describe(): string {
    return this.requests
      .map((r) => {
        const last = r.body?.messages?.at(-1);
        const tail = last ? contentText(last.content).replace(/\s+/g, ' ').slice(0, 160) : r.raw.slice(0, 160);
        const what = r.kind === 'turn' ? `turn ${r.turn}` : r.kind;
        return `#${r.n} ${r.method} ${r.url} [${what}] tools=${r.body?.tools?.length ?? 0} last=${JSON.stringify(tail)}`;
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

  private wake(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.ready()) return true;
      w.resolve();
      return false;
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    try {
      raw = await readBody(req);
    } catch (error) {
      this.unexpected.push(`${req.method} ${req.url}: unreadable body (${(error as Error).message})`);
    }
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const session = typeof req.headers['x-claude-code-session-id'] === 'string' ? req.headers['x-claude-code-session-id'] : undefined;
    const request: RecordedRequest = { n: this.requests.length + 1, method: req.method ?? '?', url, headers: req.headers, raw, kind: 'other', ...(session ? { session } : {}) };
    if (raw !== '') {
      try {
        request.body = JSON.parse(raw) as MessagesBody;
      } catch {
        if (req.method === 'POST') this.unexpected.push(`${req.method} ${url}: the body is not JSON: ${raw.slice(0, 200)}`);
      }
    }

    try {
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        request.kind = 'count_tokens';
        this.record(request);
        return json(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
      }
      if (req.method === 'POST' && path === '/v1/messages') {
        const body = request.body ?? {};
        const offersTools = Array.isArray(body.tools) && body.tools.length > 0;
        if (isCompaction(body)) {
          request.kind = 'compaction';
          this.record(request);
          return this.respond(res, body, request.n, { text: COMPACTION_ANSWER });
        }
        if (!offersTools) {
          request.kind = 'side';
          this.record(request);
          return this.respond(res, body, request.n, { text: SIDE_ANSWER });
        }
        request.kind = 'turn';
        const index = this.next < this.turns.length ? this.next++ : -1;
        request.turn = index;
        if (index === -1) this.unexpected.push(`request #${request.n} wanted a turn but the script has run out`);
        const scripted = index === -1 ? { text: EXHAUSTED_ANSWER } : this.turns[index]!;
        const turn = typeof scripted === 'function' ? await scripted(request) : scripted;
        if ('tool' in turn) {
          const offered = body.tools!.map((t) => t.name);
          if (!offered.includes(turn.tool)) this.unexpected.push(`request #${request.n}: scripted tool ${turn.tool} is not among the offered tools (${offered.join(', ')})`);
          this.toolUseIds.set(index, `toolu_mock_${String(index).padStart(3, '0')}_${request.n}`);
        }
        this.record(request);
        return this.respond(res, body, request.n, turn, this.toolUseIds.get(index));
      }
      // Probes and anything else: a harmless, empty success.
      this.record(request);
      if (!(req.method === 'HEAD' || (req.method === 'GET' && (path === '/' || path === '')))) {
        this.unexpected.push(`${req.method} ${url} (answered 200 {})`);
      }
      if (req.method === 'HEAD') {
        res.writeHead(200);
        res.end();
        return;
      }
      return json(res, 200, {});
    } catch (error) {
      this.unexpected.push(`${req.method} ${url}: the mock failed: ${(error as Error).stack}`);
      if (!res.headersSent) json(res, 500, { type: 'error', error: { type: 'api_error', message: 'mock failure' } });
      else res.end();
    }
  }

  private record(request: RecordedRequest): void {
    this.requests.push(request);
    // Woken after the answer is on its way, so a waiter sees a complete request record.
    setImmediate(() => this.wake());
  }

  /** Answers with a stream (as Claude Code asks for) or, if it did not ask, one JSON message. */
  private respond(res: ServerResponse, body: MessagesBody, n: number, turn: Turn, toolUseId?: string): void {
    const model = body.model ?? 'claude-mock';
    const id = `msg_mock_${n}`;
    const usage = { input_tokens: turn.contextTokens ?? 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const block = 'tool' in turn ? { type: 'tool_use', id: toolUseId!, name: turn.tool, input: turn.input } : { type: 'text', text: turn.text };
    const stopReason = 'tool' in turn ? 'tool_use' : 'end_turn';
    if (body.stream !== true) {
      return json(res, 200, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stopReason, stop_sequence: null, usage });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_mock_${n}` });
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', {
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    if ('tool' in turn) {
      send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: toolUseId!, name: turn.tool, input: {} } });
      // The input arrives in pieces, as from the real API.
      const input = JSON.stringify(turn.input);
      const cut = Math.ceil(input.length / 2);
      for (const part of [input.slice(0, cut), input.slice(cut)]) {
        send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } });
      }
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
    send('message_stop', {});
    res.end();
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
