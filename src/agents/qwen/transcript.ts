// Qwen Code's transcript lines (~/.qwen/projects/<folder>/chats/<session>.jsonl): an
// assistant record's usageMetadata, once per record. Its promptTokenCount is the whole prompt,
// cached part included (OpenAI's prompt_tokens), so it is also the context the request used.
// A subagent records its turns in files of its own (subagents/<session>/, isSidechain); such
// a line, should one come here, is the subagent's usage and does not tell the main context.
import type { UsageEntry } from '../../events/commands.js';

type Usage = { promptTokenCount?: unknown; candidatesTokenCount?: unknown; cachedContentTokenCount?: unknown };

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a line says, if it is an assistant record with usage; anything else says nothing. */
export function usageOf(value: unknown): { usage: UsageEntry; context?: number } | undefined {
  if (!isObject(value) || value.type !== 'assistant' || typeof value.uuid !== 'string') return undefined;
  const u = value.usageMetadata as Usage | undefined;
  if (!isObject(u)) return undefined;
  const prompt = num(u.promptTokenCount);
  const cached = Math.min(num(u.cachedContentTokenCount), prompt);
  const sidechain = value.isSidechain === true;
  const usage: UsageEntry = {
    key: value.uuid,
    agent: sidechain ? (typeof value.agentId === 'string' ? value.agentId : 'subagent') : 'main',
    ...(typeof value.model === 'string' ? { model: value.model } : {}),
    input: prompt - cached,
    output: num(u.candidatesTokenCount),
    cacheCreation: 0,
    cacheRead: cached,
  };
  return { usage, ...(prompt > 0 && !sidechain ? { context: prompt } : {}) };
}
