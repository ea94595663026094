// A scripted stand-in for the Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`),
// for running the real Gemini CLI offline. Each answer is one SSE chunk holding one candidate:
// a `functionCall` part (with the mock's call id, which the CLI echoes in its
// `functionResponse`) or a text part, which ends the turn. A `-p` run makes no other calls;
// a request offering no tools is treated as a side call all the same.
import type { ServerResponse } from 'node:http';
import { callTool, ScriptedModel, sendEvent, startStream, type Dialect, type LateTurn, type Turn } from './scriptedModel.js';

export { answer, callTool } from './scriptedModel.js';
export const shell = (command: string): Turn => callTool('run_shell_command', { command });

type Part = { text?: string; functionResponse?: { id?: string; name?: string; response?: { output?: unknown; error?: unknown } } };
export type GeminiBody = { contents?: { role?: string; parts?: Part[] }[]; tools?: { functionDeclarations?: { name: string }[] }[] };

const asBody = (body: unknown) => body as GeminiBody;
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const gemini: Dialect = {
  classify: (path, body) => (!/^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path) ? 'other' : gemini.tools(body).length > 0 ? 'turn' : 'side'),
  tools: (body) => (asBody(body).tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
  toolResults: (body) =>
    (asBody(body).contents ?? []).flatMap((content) =>
      (content.parts ?? []).flatMap(({ functionResponse: r }) => {
        if (!r) return [];
        const isError = r.response?.error !== undefined;
        return [{ callId: r.id ?? '', text: asText(isError ? r.response!.error : (r.response?.output ?? r.response)), isError }];
      }),
    ),
  lastText: (body) => (asBody(body).contents?.at(-1)?.parts ?? []).map((p) => p.text ?? (p.functionResponse ? asText(p.functionResponse.response) : '')).join('\n'),
  respond: (res: ServerResponse, _body, turn, callId) => {
    const part = 'text' in turn ? { text: turn.text } : { functionCall: { id: callId, name: turn.tool, args: turn.input } };
    startStream(res);
    sendEvent(res, {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
    });
    res.end();
  },
};

export class MockGemini extends ScriptedModel {
  private constructor() {
    super(gemini);
  }

  static async start(turns: (Turn | LateTurn)[] = []): Promise<MockGemini> {
    const mock = new MockGemini();
    await mock.listen(turns);
    return mock;
  }

  /** GOOGLE_GEMINI_BASE_URL. */
  get url(): string {
    return this.origin;
  }
}
