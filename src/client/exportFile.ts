// A file `recap export` wrote, read back in this process (`recap eval --log`): its header
// checked, each line held to the export format (src/protocol/exportFormat.ts) and upcast to
// today's shape. A line that is not one says where and what to give.
import { readFileSync } from 'node:fs';
import { describeIssues } from '../common/zodIssues.js';
import type { StoredEvent } from '../events/events.js';
import { upcast, UnknownEventVersion } from '../events/upcast.js';
import { headerSchema, lineSchema } from '../protocol/exportFormat.js';
import { UsageError } from './jobCommands.js';

const GIVE = 'give a file recap export wrote';

export function readExportFile(file: string): StoredEvent[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file} (${code === 'EISDIR' ? 'a folder' : (code ?? 'error')}); ${GIVE}`);
  }
  const events: StoredEvent[] = [];
  let header = false;
  let previous = 0;
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${file}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${where}: not valid JSON; ${GIVE}`);
    }
    if (!header) {
      if (!headerSchema.safeParse(value).success) throw new UsageError(`${where}: not a recap export (the first line must be {"format":"recap-events","version":1}); ${GIVE}`);
      header = true;
      continue;
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) throw new UsageError(`${where}: ${describeIssues(parsed.error)}`);
    if (parsed.data.seq <= previous) throw new UsageError(`${where}: seq ${parsed.data.seq} does not follow ${previous}`);
    previous = parsed.data.seq;
    try {
      events.push(upcast({ seq: parsed.data.seq, type: parsed.data.type, version: parsed.data.version, data: parsed.data.data } as StoredEvent));
    } catch (error) {
      if (error instanceof UnknownEventVersion) throw new UsageError(`${where}: ${error.message}`);
      throw error;
    }
  }
  if (!header) throw new UsageError(`${file} is empty; ${GIVE}`);
  return events;
}
