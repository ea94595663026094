// Crash safety: the daemon under concurrent load (records, checks, submits) is killed with
// SIGKILL at random moments, restarted, and the log checked: every acknowledged event is
// there, the sequence has no holes (no half-written batch), verify passes, and the live
// projection equals a full replay (verify compares them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { allEvents, call, connectMany, FULL, newTally, pick, sleep, worker } from './harness.js';

const ROUNDS = pick(3, 25);
const CLIENTS = pick(8, 24);

describe('crash safety under SIGKILL', () => {
  let box: Sandbox;
  let daemon: DaemonProcess | undefined;
  const figures = { rounds: 0, acked: 0, requests: 0, events: 0, accepted: 0 };

  beforeAll(() => {
    box = sandbox();
  });
  afterAll(async () => {
    await daemon?.stop();
    removeSandbox(box);
    console.log(`[crash ${FULL ? 'full' : 'short'}] ${JSON.stringify(figures)}`);
  });

  it(`keeps every acknowledged event through ${ROUNDS} kills`, { timeout: pick(60_000, 600_000) }, async () => {
    const acked = new Map<number, string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      daemon = await startDaemon(box);
      const clients = await connectMany(box.socket, CLIENTS);
      const tally = newTally();
      let stop = false;
      const load = clients.map((c, i) => worker(c, `crash-${i % 3}`, `r${round}c${i}`, () => stop, tally, { tolerateClose: true }));
      // Kill at a random moment once requests are flowing (slow machines load the encoder late).
      for (let waited = 0; tally.acked.size === 0 && waited < 15_000; waited += 50) await sleep(50);
      await sleep(Math.floor(Math.random() * 800));
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      stop = true;
      await Promise.all(load);
      for (const c of clients) c.socket.destroy();
      expect(tally.errors, `round ${round}`).toEqual([]);
      for (const [seq, text] of tally.acked) acked.set(seq, text);
      figures.requests += tally.requests;
      figures.accepted += tally.accepted;

      // Restart and check what survived.
      daemon = await startDaemon(box);
      const probe = await RawClient.connect(box.socket);
      const events = await allEvents(probe);
      events.forEach((e, i) => {
        expect(e.seq, 'the sequence has no holes').toBe(i + 1);
      });
      const bySeq = new Map(events.map((e) => [e.seq, e]));
      for (const [seq, text] of acked) {
        const event = bySeq.get(seq);
        expect(event?.type, `acknowledged #${seq}`).toBe('InteractionRecorded');
        expect(event?.data.text).toBe(text);
      }
      const verify = (await call(probe, 'verify', {}, 60_000)).result as { ok: boolean; problems: unknown[] };
      expect(verify.problems).toEqual([]);
      expect(verify.ok).toBe(true);
      probe.close();
      figures.rounds += 1;
      figures.acked = acked.size;
      figures.events = events.length;
      await daemon.stop('SIGKILL');
      daemon = undefined;
    }
    expect(figures.acked).toBeGreaterThan(ROUNDS);
  });
});
