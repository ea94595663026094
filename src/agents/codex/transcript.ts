// Codex's rollout file (`$CODEX_HOME/sessions/…/rollout-…-<session>.jsonl`): a
// `token_usage_record` line per model response, with that response's usage. OpenAI counts
// cached input inside input_tokens; recap's input is the part that was not cached.
import type { UsageEntry } from '../../events/commands.js';

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a line says, if it is a response's usage record; anything else says nothing. */
export function codexUsageOf(value: unknown): { usage: UsageEntry; context?: number } | undefined {
  if (!isObject(value) || value.type !== 'token_usage_record' || !isObject(value.payload)) return undefined;
  const record = value.payload;
  if (!isObject(record.usage) || typeof record.response_id !== 'string') return undefined;
  const u = record.usage;
  const total = num(u.input_tokens);
  const cacheRead = Math.min(num(u.cached_input_tokens), total);
  const cacheCreation = Math.min(num(u.cache_write_input_tokens), total - cacheRead);
  // A subagent's thread is not its session's: its usage is its own and says nothing of the main context.
  const main = record.thread_id === undefined || record.thread_id === record.session_id;
  const usage: UsageEntry = {
    key: `${typeof record.thread_id === 'string' ? record.thread_id : ''}:${record.response_id}`,
    agent: main ? 'main' : String(record.thread_id),
    input: total - cacheRead - cacheCreation,
    output: num(u.output_tokens),
    cacheCreation,
    cacheRead,
  };
  return { usage, ...(main ? { context: total } : {}) };
}
