// Claude Code's transcript (JSON Lines) read as it grows: the model's token use per
// message, and the agent's context use. Only the new bytes are read on each hook; a
// half-written last line waits for the next read; a missing file is no error.
import { open } from 'node:fs/promises';
import type { UsageEntry } from '../events/commands.js';
import { parseJson } from '../common/json.js';

/** On a first read of a long transcript only its tail is read: its newest turns matter most. */
const FIRST_READ_MAX = 4 * 1024 * 1024;
const READ_MAX = 8 * 1024 * 1024;

type Usage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};
type Entry = {
  type?: string;
  isSidechain?: boolean;
  agentId?: string;
  requestId?: string;
  message?: { id?: string; model?: string; usage?: Usage };
};

export type TranscriptNews = { usage: UsageEntry[]; contextTokens?: number };

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);

/** What a line says, if it is an assistant message with usage. */
export function usageOf(entry: Entry): { usage: UsageEntry; context?: number } | undefined {
  const message = entry.message;
  if (entry.type !== 'assistant' || !message?.usage || typeof message.id !== 'string') return undefined;
  if (message.model === '<synthetic>') return undefined;
  const u = message.usage;
  const agent = entry.isSidechain ? (entry.agentId ?? 'subagent') : 'main';
  const usage: UsageEntry = {
    key: `${message.id}:${entry.requestId ?? ''}`,
    agent,
    ...(typeof message.model === 'string' ? { model: message.model } : {}),
    input: num(u.input_tokens),
    output: num(u.output_tokens),
    cacheCreation: num(u.cache_creation_input_tokens),
    cacheRead: num(u.cache_read_input_tokens),
  };
  return { usage, ...(entry.isSidechain ? {} : { context: usage.input + usage.cacheCreation + usage.cacheRead }) };
}

export class TranscriptReader {
  private readonly offsets = new Map<string, { offset: number; context?: number }>();

  async read(path: string): Promise<TranscriptNews> {
    const known = this.offsets.get(path);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch {
      return { usage: [] };
    }
    try {
      const size = (await handle.stat()).size;
      let from = known?.offset ?? Math.max(0, size - FIRST_READ_MAX);
      if (from > size) from = 0; // the file was replaced
      const length = Math.min(size - from, READ_MAX);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, from);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      // Up to the last complete line; a tail read starts after the first (likely cut) line.
      const end = text.lastIndexOf('\n');
      const start = known === undefined && from > 0 ? text.indexOf('\n') + 1 : 0;
      const usage: UsageEntry[] = [];
      let context = known?.context;
      for (const line of end < start ? [] : text.slice(start, end).split('\n')) {
        if (line.trim() === '') continue;
        let entry: Entry;
        try {
          entry = parseJson(line) as Entry;
        } catch {
          continue;
        }
        const found = usageOf(entry);
        if (!found) continue;
        usage.push(found.usage);
        if (found.context !== undefined) context = found.context;
      }
      const consumed = end < start ? 0 : Buffer.byteLength(text.slice(0, end + 1), 'utf8');
      this.offsets.set(path, { offset: from + consumed, ...(context !== undefined ? { context } : {}) });
      return { usage, ...(context !== undefined ? { contextTokens: context } : {}) };
    } finally {
      await handle.close();
    }
  }
}
