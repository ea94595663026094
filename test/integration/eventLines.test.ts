// The `events` op answered in lines (a JSON head, a newline, the events' JSON Lines as the
// daemon made them), which `recap log` writes out without scanning: the same lines as the
// usual answer's events, for events of every kind, as stored and as `recap log` shows them;
// the pages' bounds in the head; errors answered as usual. With `stored`, the events as
// stored, of which `recap export` makes the same lines.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame, FrameSplitter } from '../../src/common/frames.js';
import { runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { StoredLines } from '../../src/daemon/storedLines.js';
import { eachStored } from '../../src/protocol/storedRecords.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** The bodies of the answers to `requests`, sent on one connection, as the bytes that came. */
async function answers(box: Sandbox, requests: Record<string, unknown>[]): Promise<Buffer[]> {
  const socket = connect(box.socket);
  const splitter = new FrameSplitter();
  const bodies: Buffer[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        for (const frame of splitter.push(chunk)) if (frame.kind === 'frame') bodies.push(Buffer.from(frame.body));
        if (bodies.length >= requests.length) resolve();
      });
      socket.on('connect', () => socket.write(Buffer.concat(requests.map((r) => encodeFrame(r)))));
    });
  } finally {
    socket.destroy();
  }
  return bodies;
}

/** A usual answer's events as JSON Lines: each as JSON.stringify writes it, ended by a newline. */
const linesOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { result: { events: unknown[] } }).result.events.map((e) => `${JSON.stringify(e)}\n`).join('');

/** An answer in lines, cut at its first newline: the head parsed, the lines as they came. */
function cut(body: Buffer): { head: unknown; lines: string } {
  const newline = body.indexOf(0x0a);
  return { head: JSON.parse(body.toString('utf8', 0, newline)), lines: body.toString('utf8', newline + 1) };
}

describe('events in lines', () => {
  it('are the usual answer’s events byte for byte, stored or as recap log shows them, and export and log write them', async () => {
    const box = newBox();
    await start(box);
    // A job through its life (a trip, a denial, a rejection, a summary), and texts JSON escapes.
    await runCli(box, ['record', '--text', prose(15)]);
    await runCli(box, ['record', '--text', prose(15)]);
    await runCli(box, ['record', '--text', `${prose(3)} "quoted" \\ back\ttab\u0001 é 漢字 😀 ${'plain words, '.repeat(20)}\n${prose(2)}`]);
    await runCli(box, ['check', '--tool', 'Read']);
    await runCli(box, ['submit'], { input: '## User Requests\ntoo short' });
    await runCli(box, ['submit'], { input: goodSummary() });
    await runCli(box, ['record', '--text', prose(2)]);

    const [stored, storedLines, shown, shownLines, firstPage, unknown, records] = await answers(box, [
      { id: 1, op: 'events', raw: true, limit: 10_000 },
      { id: 2, op: 'events', raw: true, lines: true, limit: 10_000 },
      { id: 3, op: 'events', limit: 10_000 },
      { id: 4, op: 'events', lines: true, limit: 10_000 },
      { id: 5, op: 'events', raw: true, lines: true, limit: 2 },
      { id: 6, op: 'events', raw: true, lines: true, job: 'no-such-job' },
      { id: 7, op: 'events', lines: true, stored: true, limit: 10_000 },
    ]);
    const exported = cut(storedLines!);
    const lastSeq = exported.lines.trimEnd().split('\n').length;
    expect(lastSeq).toBeGreaterThan(6);
    expect(exported.head).toEqual({ id: 2, result: { next: null, lastSeq, bytes: Buffer.byteLength(exported.lines) } });
    expect(exported.lines).toBe(linesOf(stored!));
    expect(exported.lines).toContain('\\"quoted\\" \\\\ back\\ttab\\u0001 é 漢字 😀');
    const logged = cut(shownLines!);
    expect(logged.head).toEqual({ id: 4, result: { next: null, lastSeq, bytes: Buffer.byteLength(logged.lines) } });
    expect(logged.lines).toBe(linesOf(shown!));
    for (const type of ['InteractionRecorded', 'GateTripped', 'ToolDenied', 'SummaryRejected', 'SummaryAccepted']) expect(logged.lines).toContain(`"type":"${type}"`);
    const first = cut(firstPage!);
    expect(first.head).toMatchObject({ id: 5, result: { next: 3, lastSeq } });
    expect(first.lines).toBe(
      exported.lines
        .split('\n')
        .slice(0, 2)
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(JSON.parse(unknown!.toString('utf8'))).toMatchObject({ id: 6, error: { code: 'unknown_job' } });
    // `stored`: the events as stored, whose lines (made as the CLI makes them) are the daemon's own.
    const newline = records!.indexOf(0x0a);
    expect(JSON.parse(records!.toString('utf8', 0, newline))).toEqual({ id: 7, result: { next: null, lastSeq, bytes: records!.length - newline - 1, stored: true } });
    const made = new StoredLines(true);
    eachStored(records!.subarray(newline + 1), (seq, bytes, start, end) => made.add(seq, bytes, start, end));
    expect(made.finish().toString('utf8')).toBe(exported.lines);

    const exportRun = await runCli(box, ['export']);
    expect(exportRun.code).toBe(0);
    // The daemon's own events may follow (none is written by reading): the lines read before come first, whole.
    expect(exportRun.stdout.startsWith(`{"format":"recap-events","version":2}\n${exported.lines}`)).toBe(true);
    const logRun = await runCli(box, ['log', '--json']);
    expect(logRun.stdout.startsWith(logged.lines)).toBe(true);
    const human = (await runCli(box, ['log'])).stdout.trim().split('\n');
    expect(human.length).toBeGreaterThanOrEqual(lastSeq);
    expect(human.join('\n')).toContain('SummaryAccepted');
  });
});
