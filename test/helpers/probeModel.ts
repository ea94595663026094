// A scripted model for recap eval --probes: an OpenAI-compatible `POST /v1/chat/completions` on
// 127.0.0.1 (not streamed) that answers each of the three requests (questions, answers,
// judging, told apart by their system prompt) with scripted JSON, or fails as told, and records
// every request it was sent.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './requestBody.js';

export type Step = 'questions' | 'answers' | 'judge';
export type ProbeRequest = { step: Step; url: string; headers: IncomingHttpHeaders; text: string; model: string };
export type Script = { [S in Step]: string } & { status?: number };

type Body = { model: string; messages: { role: string; content: string }[] };

function stepOf(system: string): Step {
  if (system.includes('From the session window below, write')) return 'questions';
  if (system.includes('Answer each question from them alone')) return 'answers';
  return 'judge';
}

export class ProbeModel {
  readonly requests: ProbeRequest[] = [];

  private constructor(
    private readonly server: Server,
    private readonly script: Script,
  ) {}

  static async start(script: Script): Promise<ProbeModel> {
    const server = createServer();
    const model = new ProbeModel(server, script);
    server.on('request', (req, res) => {
      void readBody(req).then((raw) => {
        const body = JSON.parse(raw) as Body;
        const step = stepOf(body.messages[0]?.content ?? '');
        model.requests.push({ step, url: req.url ?? '', headers: req.headers, text: body.messages.map((m) => m.content).join('\n'), model: body.model });
        if (script.status !== undefined) {
          res.writeHead(script.status, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
          return;
        }
        const reply = { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: script[step] }, finish_reason: 'stop' }] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
