// A file `recap export` wrote, read back line by line: the header first, then each line held
// to the export format, its seq after the one before. `recap import` (streamed) and `recap eval
// --log` (whole) both read through it; each says in its own words what to do about a bad line.
import { describeIssues } from '../common/zodIssues.js';
import type { StoredEvent } from '../events/events.js';
import { endSchema, headerSchema, lineSchema } from './exportFormat.js';

/** What is wrong where: `notExport` when the file is no export at all (not JSON, no header, empty). */
export class BadExportLine extends Error {
  constructor(
    message: string,
    readonly notExport: boolean,
  ) {
    super(message);
  }
}

export class ExportReader {
  /** The header's version, once read. */
  private version: number | undefined;
  private previous = 0;
  private events = 0;
  /** The end line's count, once read: nothing may follow it. */
  private ended: number | undefined;

  constructor(private readonly file: string) {}

  /** The event on line `number` as stored, or undefined for the header and the end line; throws BadExportLine. */
  line(number: number, text: string): StoredEvent | undefined {
    const where = `${this.file}:${number}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadExportLine(`${where}: not valid JSON`, true);
    }
    if (this.version === undefined) {
      const header = headerSchema.safeParse(value);
      if (!header.success) throw new BadExportLine(`${where}: not a recap export (the first line must be {"format":"recap-events","version":2})`, true);
      this.version = header.data.version;
      return undefined;
    }
    if (this.ended !== undefined) throw new BadExportLine(`${where}: a line after the export's end line; the file was added to after recap wrote it`, false);
    const end = this.version >= 2 && typeof value === 'object' && value !== null && 'end' in value ? endSchema.safeParse(value) : undefined;
    if (end !== undefined) {
      if (!end.success) throw new BadExportLine(`${where}: ${describeIssues(end.error)}`, false);
      if (end.data.end.events !== this.events)
        throw new BadExportLine(`${where}: the export says it holds ${end.data.end.events} events, but ${this.events} are in the file; some were lost, export it again`, false);
      this.ended = this.events;
      return undefined;
    }
    const line = lineSchema.safeParse(value);
    if (!line.success) throw new BadExportLine(`${where}: ${describeIssues(line.error)}`, false);
    if (line.data.seq <= this.previous) throw new BadExportLine(`${where}: seq ${line.data.seq} does not follow ${this.previous}`, false);
    this.previous = line.data.seq;
    this.events += 1;
    return { seq: line.data.seq, type: line.data.type, version: line.data.version, data: line.data.data } as StoredEvent;
  }

  /** At the file's end: throws BadExportLine when there was not even a header, or an export cut short. */
  end(): void {
    if (this.version === undefined) throw new BadExportLine(`${this.file} is empty`, true);
    if (this.version >= 2 && this.ended === undefined) {
      throw new BadExportLine(
        `${this.file} ends after ${this.events} events without the export's end line: it was cut short (a failed or interrupted export); export it again`,
        false,
      );
    }
    if (this.version === 1 && this.events === 0) throw new BadExportLine(`${this.file} holds no events, only the header an export begins with; export it again`, false);
  }
}
