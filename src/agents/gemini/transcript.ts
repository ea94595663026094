// Gemini CLI's transcript lines (~/.gemini/tmp/<project>/chats/session-*.jsonl): a `gemini`
// record's token use. The CLI rewrites a record by appending it again under the same id
// (tools added, tokens set once) and rewinds with `{"$rewindTo": id}`; usage is keyed by the
// record's id, so a rewrite counts once, and a rewound answer was still paid for, so it stays
// counted. `$set` and header lines carry no usage.
import type { UsageEntry } from '../../events/commands.js';

type Tokens = { input?: number; output?: number; cached?: number; thoughts?: number; tool?: number };

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a line says, if it is a model answer with its tokens. Gemini's prompt count holds the
 * cached part and not the tool-use prompt; its thoughts are paid as output. The prompt count
 * is the context the request used.
 */
export function geminiUsageOf(value: unknown): { usage: UsageEntry; context?: number } | undefined {
  if (!isObject(value) || value.type !== 'gemini' || typeof value.id !== 'string' || !isObject(value.tokens)) return undefined;
  const t = value.tokens as Tokens;
  const prompt = num(t.input);
  const cached = Math.min(num(t.cached), prompt);
  const usage: UsageEntry = {
    key: value.id,
    agent: 'main',
    ...(typeof value.model === 'string' ? { model: value.model } : {}),
    input: prompt - cached + num(t.tool),
    output: num(t.output) + num(t.thoughts),
    cacheCreation: 0,
    cacheRead: cached,
  };
  return { usage, context: prompt };
}
