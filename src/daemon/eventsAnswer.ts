// The `events` op's answer when its events are JSON already, in either of its two forms: the
// usual `{"id":N,"result":{"events":[...],...}}`, or, when the request asks for `lines`, a
// JSON head, a newline and the events as JSON Lines, which `recap log` writes out as they
// are: no client scans a page of megabytes to cut its events out. With `stored`, the same
// head, then the events as stored (storedRecords.ts), which `recap export` makes the lines of.
import { eventLinesOf, type EventLine } from '../protocol/answers.js';
import { eachStored } from '../protocol/storedRecords.js';
import { StoredLines } from './storedLines.js';
import type { ResponseOf } from '../protocol/protocol.js';

/**
 * An answer of the `events` op whose events are JSON already: the socket sends its bytes as
 * they are (`answerParts`); anything else that writes it as JSON gets the same text.
 */
export class EncodedEventsPage implements ResponseOf<'events'> {
  constructor(
    /** The events as a JSON array (`[line,line]`), with `lines` as JSON Lines (`line\nline\n`), with `stored` as stored records. */
    readonly json: Buffer,
    readonly count: number,
    readonly next: number | null,
    readonly lastSeq: number,
    readonly lines = false,
    readonly stored = false,
  ) {}

  get events(): EventLine[] {
    if (this.stored) {
      return eventLinesOf(linesOfRecords(this.json, new StoredLines(true, this.count)).toString('utf8'));
    }
    const text = this.json.toString('utf8');
    return this.lines ? eventLinesOf(text) : (JSON.parse(text) as EventLine[]);
  }

  toJSON(): ResponseOf<'events'> {
    return { events: this.events, next: this.next, lastSeq: this.lastSeq };
  }

  /**
   * The body of the answer to request `id`, in parts to be sent one after another: the page's
   * bytes are not copied into one buffer with the rest. Without `lines`, the parts join into
   * what JSON.stringify({ id, result: this }) writes.
   */
  answerParts(id: string | number | null): Buffer[] {
    const place = `"next":${JSON.stringify(this.next)},"lastSeq":${JSON.stringify(this.lastSeq)}`;
    // JSON.stringify writes no newline: the head ends at the first one.
    const stored = this.stored ? ',"stored":true' : '';
    if (this.lines) return [Buffer.from(`{"id":${JSON.stringify(id)},"result":{${place},"bytes":${this.json.length}${stored}}}\n`), this.json];
    return [Buffer.from(`{"id":${JSON.stringify(id)},"result":{"events":`), this.json, Buffer.from(`,${place}}}`)];
  }
}

/** A page of events made as objects (`recap log` of upcast events), as JSON Lines. */
export function linesPage(page: ResponseOf<'events'>): EncodedEventsPage {
  let text = '';
  for (const event of page.events) text += `${JSON.stringify(event)}\n`;
  return new EncodedEventsPage(Buffer.from(text), page.events.length, page.next, page.lastSeq, true);
}

/** The JSON Lines of stored records (`recap export`'s, made by the CLI), written into `lines` from its start: good until it is used again. */
export function linesOfRecords(records: Uint8Array, lines: StoredLines): Buffer {
  lines.clear();
  eachStored(records, (seq, bytes, start, end) => lines.add(seq, bytes, start, end));
  return lines.finish();
}
