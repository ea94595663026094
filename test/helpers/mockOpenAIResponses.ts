// A scripted stand-in for OpenAI's Responses API (`POST /v1/responses`, streamed), for running
// the real Codex CLI offline. A tool call is one `response.output_item.done` item: a
// `function_call` (exec_command, Codex's shell) or a `custom_tool_call` (apply_patch, whose
// input is the patch text); text is a `message`. Every answer ends with `response.completed`,
// without which Codex retries five times and fails. Requests that offer no tools are Codex's
// side calls (compaction): they get a plain message and leave the script alone.
import type { ServerResponse } from 'node:http';
import { callTool, ScriptedModel, sendEvent, startStream, type Dialect, type LateTurn, type Turn } from './scriptedModel.js';

export { answer } from './scriptedModel.js';
/** Codex's shell tool, as the model calls it: `exec_command {cmd}` (hooks see it as `Bash`). */
export const execCommand = (cmd: string): Turn => callTool('exec_command', { cmd });
/** Codex's patch tool: a free-form `custom_tool_call` whose input is the patch. */
export const applyPatch = (patch: string): Turn => callTool('apply_patch', patch);

type InputItem = { type: string; role?: string; call_id?: string; output?: unknown; content?: unknown };
export type ResponsesBody = { model?: string; input?: InputItem[]; tools?: { type: string; name?: string }[] };

const asBody = (body: unknown) => body as ResponsesBody;

/** The text of an output: a string, or the text of its content parts. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

const responses: Dialect = {
  classify: (path, body) => (path !== '/v1/responses' ? 'other' : (asBody(body).tools?.length ?? 0) > 0 ? 'turn' : 'side'),
  tools: (body) => (asBody(body).tools ?? []).flatMap((t) => (t.name === undefined ? [] : [t.name])),
  toolResults: (body) =>
    (asBody(body).input ?? [])
      .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      .map((item) => ({ callId: item.call_id ?? '', text: text(item.output), isError: false })),
  lastText: (body) => {
    const last = asBody(body).input?.at(-1);
    return last ? text(last.output ?? last.content) : '';
  },
  respond: (res: ServerResponse, body, turn, callId, n) => {
    const id = `resp_mock_${n}`;
    const item =
      'text' in turn
        ? { type: 'message', id: `msg_mock_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }
        : typeof turn.input === 'string'
          ? { type: 'custom_tool_call', id: `ctc_mock_${n}`, status: 'completed', call_id: callId, name: turn.tool, input: turn.input }
          : { type: 'function_call', id: `fc_mock_${n}`, status: 'completed', call_id: callId, name: turn.tool, arguments: JSON.stringify(turn.input) };
    startStream(res);
    sendEvent(res, { type: 'response.created', response: { id } }, 'response.created');
    sendEvent(res, { type: 'response.output_item.done', output_index: 0, item }, 'response.output_item.done');
    const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 };
    sendEvent(res, { type: 'response.completed', response: { id, model: asBody(body).model, usage } }, 'response.completed');
    res.end();
  },
};

export class MockOpenAIResponses extends ScriptedModel {
  private constructor() {
    super(responses);
  }

  static async start(turns: (Turn | LateTurn)[] = []): Promise<MockOpenAIResponses> {
    const mock = new MockOpenAIResponses();
    await mock.listen(turns);
    return mock;
  }

  /** `base_url` of Codex's model provider. */
  get url(): string {
    return `${this.origin}/v1`;
  }
}
