// A file `recap export` wrote, read back line by line: the header first, then each line held
// to the export format, its seq after the one before. `recap import` (streamed) and `recap eval
// --log` (whole) both read through it; each says in its own words what to do about a bad line.
import { describeIssues } from '../common/zodIssues.js';
import type { StoredEvent } from '../events/events.js';
import { headerSchema, lineSchema } from './exportFormat.js';

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
  private header = false;
  private previous = 0;

  constructor(private readonly file: string) {}

  /** The event on line `number` as stored, or undefined for the header; throws BadExportLine. */
  line(number: number, text: string): StoredEvent | undefined {
    const where = `${this.file}:${number}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadExportLine(`${where}: not valid JSON`, true);
    }
    if (!this.header) {
      if (!headerSchema.safeParse(value).success) {
        throw new BadExportLine(`${where}: not a recap export (the first line must be {"format":"recap-events","version":1})`, true);
      }
      this.header = true;
      return undefined;
    }
    const line = lineSchema.safeParse(value);
    if (!line.success) throw new BadExportLine(`${where}: ${describeIssues(line.error)}`, false);
    if (line.data.seq <= this.previous) throw new BadExportLine(`${where}: seq ${line.data.seq} does not follow ${this.previous}`, false);
    this.previous = line.data.seq;
    return { seq: line.data.seq, type: line.data.type, version: line.data.version, data: line.data.data } as StoredEvent;
  }

  /** At the file's end: throws BadExportLine when there was not even a header. */
  end(): void {
    if (!this.header) throw new BadExportLine(`${this.file} is empty`, true);
  }
}
