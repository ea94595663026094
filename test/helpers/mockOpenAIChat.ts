// A scripted stand-in for OpenAI's Chat Completions API (`POST /v1/chat/completions`,
// streamed), for running the real Qwen Code CLI offline. A tool call streams as one
// `tool_calls` delta, then `finish_reason: "tool_calls"`; text as one content delta, then
// `"stop"`; both end with `data: [DONE]`. Requests whose last message starts with
// `[SUGGESTION MODE` (the interactive UI's follow-up suggestions) or that offer no tools are
// side calls and leave the script alone. Started with `{ usage: true }`, every answer ends with
// the same usage (USAGE), which Qwen Code writes into its transcript as usageMetadata (and
// then adds context_usage, context_limit and input_tokens to its Stop payload).
import type { ServerResponse } from 'node:http';
import { callTool, ScriptedModel, sendEvent, startStream, type Dialect, type LateTurn, type Turn } from './scriptedModel.js';

export { answer, callTool } from './scriptedModel.js';
export const shell = (command: string): Turn => callTool('run_shell_command', { command });

type Message = { role: string; content?: unknown; tool_call_id?: string };
export type ChatBody = { model?: string; messages?: Message[]; tools?: { function?: { name: string } }[] };

const asBody = (body: unknown) => body as ChatBody;

/** The usage every answer reports, as OpenAI streams it on the last chunk: 50 of its prompt tokens cached. */
export const USAGE = { prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230, prompt_tokens_details: { cached_tokens: 50 } };

/** A message's text: a string, or the text of its parts. */
function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

const chatDialect = (usage: boolean): Dialect => ({
  classify: (path, body) => {
    if (path !== '/v1/chat/completions') return 'other';
    const last = asBody(body).messages?.at(-1);
    return tools(body).length === 0 || text(last?.content).startsWith('[SUGGESTION MODE') ? 'side' : 'turn';
  },
  tools,
  toolResults: (body) => (asBody(body).messages ?? []).filter((m) => m.role === 'tool').map((m) => ({ callId: m.tool_call_id ?? '', text: text(m.content), isError: false })),
  lastText: (body) => text(asBody(body).messages?.at(-1)?.content),
  respond: (res: ServerResponse, body, turn, callId, n) => {
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id: `chatcmpl-mock-${n}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: asBody(body).model ?? 'mock-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage && finish !== null ? { usage: USAGE } : {}),
    });
    startStream(res);
    if ('text' in turn) {
      sendEvent(res, chunk({ role: 'assistant', content: turn.text }, null));
      sendEvent(res, chunk({}, 'stop'));
    } else {
      const call = { index: 0, id: callId, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.input) } };
      sendEvent(res, chunk({ role: 'assistant', tool_calls: [call] }, null));
      sendEvent(res, chunk({}, 'tool_calls'));
    }
    sendEvent(res, '[DONE]');
    res.end();
  },
});

function tools(body: unknown): string[] {
  return (asBody(body).tools ?? []).flatMap((t) => (t.function ? [t.function.name] : []));
}

export class MockOpenAIChat extends ScriptedModel {
  private constructor(usage: boolean) {
    super(chatDialect(usage));
  }

  static async start(turns: (Turn | LateTurn)[] = [], options: { usage?: boolean } = {}): Promise<MockOpenAIChat> {
    const mock = new MockOpenAIChat(options.usage ?? false);
    await mock.listen(turns);
    return mock;
  }

  /** OPENAI_BASE_URL. */
  get url(): string {
    return `${this.origin}/v1`;
  }
}
