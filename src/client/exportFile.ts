// A file `recap export` wrote, read back in this process (`recap eval --log`): its header
// checked, each line held to the export format (src/protocol/exportFormat.ts) and upcast to
// today's shape. A line that is not one says where and what to give.
import { readFileSync } from 'node:fs';
import type { StoredEvent } from '../events/events.js';
import { upcast, UnknownEventVersion } from '../events/upcast.js';
import { BadExportLine, ExportReader } from '../protocol/exportReader.js';
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
  const reader = new ExportReader(file);
  const events: StoredEvent[] = [];
  try {
    for (const [i, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      const stored = reader.line(i + 1, line);
      if (stored !== undefined) events.push(upcastAt(stored, `${file}:${i + 1}`));
    }
    reader.end();
  } catch (error) {
    throw error instanceof BadExportLine ? new UsageError(error.notExport ? `${error.message}; ${GIVE}` : error.message) : error;
  }
  return events;
}

/** The event in today's shape; one of a version this recap does not know says where. */
function upcastAt(stored: StoredEvent, where: string): StoredEvent {
  try {
    return upcast(stored);
  } catch (error) {
    throw error instanceof UnknownEventVersion ? new UsageError(`${where}: ${error.message}`) : error;
  }
}
