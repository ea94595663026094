// The model `recap eval --probes` asks, over HTTP: POST {EVAL_MODEL_URL}/chat/completions in the
// OpenAI format, the key in the Authorization header alone, a deadline per request and one more
// try after a failure that may pass (no answer, a timeout, a 429 or 5xx). A failure says what
// failed and what to do; it never holds the key.
import type { EvalModel } from '../common/evalModelConfig.js';
import { UserError } from '../common/errors.js';
import type { ChatMessage } from '../events/probePrompts.js';

export class ModelError extends UserError {}

/** Asks the model one request; `step` names it in a failure ("the questions for job#2"). */
export type Ask = (messages: ChatMessage[], step: string) => Promise<string>;

export const MODEL_TIMEOUT_MS = 120_000;

type Attempt = { ok: true; text: string } | { ok: false; retry: boolean; why: string };

async function attempt(model: EvalModel, messages: ChatMessage[], timeoutMs: number): Promise<Attempt> {
  let response: Response;
  try {
    response = await fetch(`${model.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${model.key}` },
      body: JSON.stringify({ model: model.model, messages, temperature: 0 }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    const cause = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    return { ok: false, retry: true, why: name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : `it could not be reached (${cause ?? (error as Error).message})` };
  }
  if (!response.ok) {
    await response.body?.cancel();
    const hint =
      response.status === 401 || response.status === 403
        ? '; check EVAL_MODEL_KEY'
        : response.status === 404
          ? '; check EVAL_MODEL_URL (the part before /chat/completions) and EVAL_MODEL'
          : '';
    return { ok: false, retry: response.status === 429 || response.status >= 500, why: `it answered HTTP ${response.status}${hint}` };
  }
  const body = (await response.json().catch(() => undefined)) as { choices?: { message?: { content?: unknown } }[] } | undefined;
  const text = body?.choices?.[0]?.message?.content;
  if (typeof text !== 'string') return { ok: false, retry: false, why: 'its answer has no choices[0].message.content; is EVAL_MODEL_URL an OpenAI-compatible endpoint?' };
  return { ok: true, text };
}

/** The model's `ask`: each request tried at most twice. */
export function modelAsker(model: EvalModel, timeoutMs = MODEL_TIMEOUT_MS): Ask {
  return async (messages, step) => {
    let result = await attempt(model, messages, timeoutMs);
    if (!result.ok && result.retry) result = await attempt(model, messages, timeoutMs);
    if (result.ok) return result.text;
    throw new ModelError(`the model at ${model.url} failed ${step}: ${result.why.replaceAll(model.key, '***')}; the scores so far were not written`);
  };
}
