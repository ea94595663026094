// `recap import FILE`: an export written back into an empty log, event for event, with the
// same sequence numbers, so its export is byte-identical. The whole file is checked before
// anything is written; the daemon must not be running on that log.
import { createReadStream } from 'node:fs';
import { UserError } from '../common/errors.js';
import { createInterface } from 'node:readline';
import type { StoredEvent } from '../events/events.js';
import { EventStore } from './eventStore.js';
import { BadExportLine, ExportReader } from '../protocol/exportReader.js';

export class ImportRefused extends UserError {}

const BATCH = 5000;

async function* lines(file: string): AsyncGenerator<{ number: number; text: string }> {
  const reader = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  for await (const text of reader) {
    number += 1;
    if (text.trim() !== '') yield { number, text };
  }
}

async function* events(file: string): AsyncGenerator<StoredEvent> {
  const reader = new ExportReader(file);
  try {
    for await (const { number, text } of lines(file)) {
      const event = reader.line(number, text);
      if (event !== undefined) yield event;
    }
    reader.end();
  } catch (error) {
    throw error instanceof BadExportLine ? new ImportRefused(error.message) : error;
  }
}

export async function importLog(file: string, logDir: string, progress?: (done: number) => void): Promise<number> {
  let store: EventStore;
  try {
    store = await EventStore.open(logDir);
  } catch (error) {
    throw new ImportRefused(`${(error as Error).message}; stop it first: recap import writes the log directly`);
  }
  try {
    if (store.lastSeq > 0) throw new ImportRefused(`the log at ${logDir} already holds ${store.lastSeq} events; import only into an empty data folder (RECAP_DATA_DIR)`);
    let checked = 0;
    for await (const _event of events(file)) checked += 1;
    let batch: StoredEvent[] = [];
    let written = 0;
    for await (const event of events(file)) {
      batch.push(event);
      if (batch.length === BATCH) {
        await store.writeStored(batch);
        written += batch.length;
        batch = [];
        progress?.(written);
      }
    }
    await store.writeStored(batch);
    return checked;
  } finally {
    await store.close();
  }
}
