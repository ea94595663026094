// Shared pieces of the reliability suites: the short/full switch, a daemon's resident memory,
// a pipelining protocol client with ids, a mixed-load worker, and the whole log read back.
import { readFileSync } from 'node:fs';
import { RawClient } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

/** RECAP_RELIABILITY=full runs the long versions (npm run test:reliability). */
export const FULL = process.env.RECAP_RELIABILITY === 'full';
export const pick = <T>(short: T, full: T): T => (FULL ? full : short);

/** The resident set of a process in KiB, from /proc/<pid>/status (VmRSS). */
export function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let ids = 0;
/** One request with a fresh id; rejects after `timeoutMs` or when the connection closes first. */
export async function call(client: RawClient, op: string, fields: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const id = `r${(ids += 1)}`;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${op} timed out`)), timeoutMs)));
  const closed = client.closed.then(() => Promise.reject(new Error(`connection closed during ${op}`)));
  try {
    const before = client.frames.length;
    client.send({ id, op, ...fields });
    const found = (async () => {
      for (let n = before + 1; ; n += 1) {
        await client.received(n);
        const frame = client.frames[n - 1]!;
        if (frame.id === id && !('progress' in frame)) return frame;
      }
    })();
    return await Promise.race([found, timeout, closed]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every event in the log, in order, through the `events` op. */
export async function allEvents(client: RawClient): Promise<{ seq: number; type: string; data: Record<string, unknown> }[]> {
  const events: { seq: number; type: string; data: Record<string, unknown> }[] = [];
  let from = 1;
  for (;;) {
    const page = (await call(client, 'events', { fromSeq: from, limit: 10_000 }, 60_000)).result as {
      events: { seq: number; type: string; data: Record<string, unknown> }[];
      next: number | null;
    };
    events.push(...page.events);
    if (page.next === null) return events;
    from = page.next;
  }
}

export type Tally = { requests: number; errors: string[]; acked: Map<number, string>; accepted: number };
export const newTally = (): Tally => ({ requests: 0, errors: [], acked: new Map(), accepted: 0 });

/**
 * One well-behaved client: records, checks and submits in a loop until `until()` says stop.
 * Each acknowledged record's seq and text go into the tally. With `tolerateClose`, a closed
 * connection ends the loop quietly (the crash harness kills the daemon under it).
 */
export async function worker(client: RawClient, job: string, tag: string, until: () => boolean, tally: Tally, options: { tolerateClose?: boolean } = {}): Promise<void> {
  for (let i = 0; !until(); i += 1) {
    const which = i % 5;
    try {
      if (which <= 2) {
        const text = `${tag}-${i} ${prose(1 + (i % 3))}`;
        const answer = await call(client, 'record', { job, kind: 'prompt', text });
        tally.requests += 1;
        if ('error' in answer) tally.errors.push(JSON.stringify(answer.error));
        else tally.acked.set((answer.result as { seq: number }).seq, text);
      } else if (which === 3) {
        const answer = await call(client, 'check', { job, tool: 'Read', input: { file_path: '/etc/hosts' } });
        tally.requests += 1;
        if ('error' in answer) tally.errors.push(JSON.stringify(answer.error));
      } else {
        const answer = await call(client, 'submit', { job, text: goodSummary(undefined, i) });
        tally.requests += 1;
        if ('error' in answer) tally.errors.push(JSON.stringify(answer.error));
        else if ((answer.result as { accepted?: boolean }).accepted) tally.accepted += 1;
      }
    } catch (error) {
      if (options.tolerateClose) return;
      tally.errors.push((error as Error).message);
      return;
    }
  }
}

export async function connectMany(path: string, count: number): Promise<RawClient[]> {
  const clients: RawClient[] = [];
  for (let i = 0; i < count; i += 50) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => RawClient.connect(path)))));
  }
  return clients;
}

/** Turns on the daemon's HTTP hook endpoint through the socket: its port, its token and the token's file. */
export async function enableHttp(socketPath: string): Promise<{ port: number; token: string; tokenFile: string }> {
  const client = await RawClient.connect(socketPath);
  const info = (await call(client, 'http')).result as { url: string; tokenFile: string };
  client.close();
  return { port: Number(new URL(info.url).port), token: readFileSync(info.tokenFile, 'utf8').trim(), tokenFile: info.tokenFile };
}
