// Load: many concurrent clients mixing checks, records and submits for a while: zero errors,
// zero lost events, memory flat. Each second the daemon's VmRSS is read from /proc and its
// live JS heap from the stats op. The heap's floor (its smallest sample, near its size after
// a collection) is what a leak makes climb; RSS also holds V8's heap sizing and LevelDB's native caches,
// which settle over minutes, so it only gets a runaway bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { allEvents, call, connectMany, FULL, newTally, pick, rssKb, sleep, worker } from './harness.js';

const CLIENTS = pick(50, 200);
const SECONDS = pick(6, 60);

describe(`load: ${CLIENTS} clients for ${SECONDS} s`, () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
    console.log(`[load ${FULL ? 'full' : 'short'}] ${JSON.stringify(figures)}`);
  });

  it('serves every request, loses no event, keeps memory flat', { timeout: (SECONDS + 60) * 1000 }, async () => {
    const pid = daemon.child.pid!;
    const clients = await connectMany(box.socket, CLIENTS);
    // Warm up (token encoder, first snapshot) before the baseline.
    await Promise.all(clients.slice(0, 10).map((c, i) => call(c, 'record', { job: `load-${i % 10}`, kind: 'prompt', text: 'warm up' })));
    const tally = newTally();
    const started = Date.now();
    const end = started + SECONDS * 1000;
    const samples: number[] = [];
    const heap: number[] = [];
    const meter = await RawClient.connect(box.socket);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(rssKb(pid));
        const stats = (await call(meter, 'stats')).result as { memory: { heapUsed: number } };
        heap.push(Math.round(stats.memory.heapUsed / 1024));
        await sleep(1000);
      }
    })();
    await Promise.all(clients.map((c, i) => worker(c, `load-${i % 10}`, `c${i}`, () => Date.now() >= end, tally)));
    sampling = false;
    await sampler;
    meter.close();
    for (const c of clients) c.close();

    const probe = await RawClient.connect(box.socket);
    const events = await allEvents(probe);
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    const lost = [...tally.acked].filter(([seq, text]) => bySeq.get(seq)?.data.text !== text).length;
    const verify = (await call(probe, 'verify', {}, 120_000)).result as { ok: boolean; problems: unknown[] };
    probe.close();

    const third = Math.max(1, Math.floor(samples.length / 3));
    const early = Math.max(...samples.slice(0, third));
    const late = Math.max(...samples.slice(-third));
    // The first third is the warm-up (the heap grows to its working size): the middle one is the baseline.
    const heapThird = Math.max(1, Math.floor(heap.length / 3));
    Object.assign(figures, {
      clients: CLIENTS,
      seconds: (Date.now() - started) / 1000,
      requests: tally.requests,
      perSecond: Math.round(tally.requests / SECONDS),
      errors: tally.errors.length,
      acked: tally.acked.size,
      lost,
      accepted: tally.accepted,
      events: events.length,
      rssStartKb: samples[0],
      rssEarlyMaxKb: early,
      rssLateMaxKb: late,
      rssEndKb: samples.at(-1),
      heapFloorMiddleKb: Math.min(...heap.slice(heapThird, -heapThird)),
      heapFloorLateKb: Math.min(...heap.slice(-heapThird)),
      rssSamplesMb: samples.map((kb) => Math.round(kb / 1024)),
    });
    expect(tally.errors.slice(0, 5)).toEqual([]);
    expect(lost).toBe(0);
    expect(verify.problems).toEqual([]);
    expect(tally.requests).toBeGreaterThan(CLIENTS);
    // No runaway: RSS may settle upwards (see the top), but not by more than this.
    expect(late).toBeLessThan(early + 128 * 1024);
  });

  // Short runs are too brief for a warm-up and two thirds to compare: only the full run asserts it.
  (FULL ? it : it.skip)('keeps its live heap flat through the run', () => {
    expect(figures.heapFloorLateKb as number).toBeLessThan((figures.heapFloorMiddleKb as number) + 32 * 1024);
  });
});
