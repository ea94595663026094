// Snapshots: a snapshot plus the events after it gives the same projection as replaying
// every event, for randomized event histories made by the real decider.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/canonical.js';
import type { Command } from '../../src/events/commands.js';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../../src/events/events.js';
import { Projection } from '../../src/daemon/projection.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/daemon/snapshot.js';
import { sessionBound } from '../../src/events/sessions.js';
import { context, decide, T0, validSummary, words } from '../helpers/spec.js';
import { claudeToolCall } from '../../src/agents/claude/facts.js';

/** mulberry32: a small seeded generator, so a failing history can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JOBS = ['alpha-00000001', 'beta-00000002', 'gamma-00000003'];
const TOOLS = ['Read', 'Edit', 'Bash', 'Agent', 'mcp__x__y'];
const COMMANDS = ['recap status', 'ls -la', "recap submit <<'EOF'\n## A\nEOF", 'recap status; rm -rf /'];

function history(seed: number, length: number): StoredEvent[] {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const ctx = context({ TOKEN_THRESHOLD: 200 });
  const projection = new Projection();
  const events: StoredEvent[] = [];
  for (let i = 0; events.length < length; i += 1) {
    const job = pick(JOBS);
    const now = T0 + i * 1000;
    const roll = next();
    let produced: RecapEvent[];
    if (roll < 0.05) {
      produced = [{ type: 'ConfigApplied', data: { ...(next() < 0.5 ? { job } : {}), values: { TOKEN_THRESHOLD: Math.floor(next() * 900) }, sources: {}, time: now } }];
    } else if (roll < 0.09) {
      // A few sessions, bound again and again: only the first binding of each holds.
      const session = pick(['s1', 's2', 's3', 's4']);
      produced = [sessionBound(session, { job, project: `/p/${job}` }, `/p/${job}/${Math.floor(next() * 3)}`, now)];
    } else {
      const command: Command =
        roll < 0.5
          ? { type: 'RecordInteraction', job, kind: pick(['prompt', 'qa', 'tool']), text: words(1 + Math.floor(next() * 120)), now }
          : roll < 0.85
            ? { type: 'CheckTool', job, call: claudeToolCall(pick(TOOLS), { command: pick(COMMANDS), file_path: '/src/a.ts' }), now }
            : { type: 'SubmitSummary', job, text: next() < 0.6 ? validSummary(55 + Math.floor(next() * 40)) : '## Nope\nshort', now };
      // The summary texts submit checks against, as the daemon loads them from the log.
      const texts = new Map(events.flatMap((e) => (e.type === 'SummaryAccepted' ? [[e.seq, e.data.text] as const] : [])));
      produced = decide(command, projection.view(job), { ...ctx, texts }).events;
    }
    for (const event of produced) {
      const stored = { ...event, seq: events.length + 1, version: CURRENT_VERSION[event.type] } as StoredEvent;
      events.push(stored);
      projection.apply(stored);
    }
  }
  return events;
}

const fingerprint = (p: Projection) =>
  canonicalJson({
    lastSeq: p.lastSeq,
    jobs: [...p.jobs.entries()].sort(([a], [b]) => a.localeCompare(b)),
    config: [...p.appliedConfig.entries()].sort(([a], [b]) => a.localeCompare(b)),
    sessions: [...p.sessions.entries()].sort(([a], [b]) => a.localeCompare(b)),
  });

describe('projection snapshots', () => {
  it('snapshot + tail equals a full replay, for 200 randomized histories cut at random points', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const events = history(seed, 20 + (seed % 7) * 40);
      const full = new Projection();
      for (const event of events) full.apply(event);

      const cut = Math.floor(random(seed * 7919)() * events.length);
      const head = new Projection();
      for (const event of events.slice(0, cut)) head.apply(event);
      const restored = decodeSnapshot(encodeSnapshot(head));
      expect(restored, `seed ${seed}`).toBeDefined();
      for (const event of events.slice(cut)) restored!.apply(event);

      expect(fingerprint(restored!), `seed ${seed}, cut at ${cut} of ${events.length}`).toBe(fingerprint(full));
    }
  });

  it('the histories exercise every kind of event', () => {
    const types = new Set(
      Array.from({ length: 20 }, (_, i) => history(i + 1, 200))
        .flat()
        .map((e) => e.type),
    );
    expect([...types].sort()).toEqual(['ConfigApplied', 'GateTripped', 'InteractionRecorded', 'SessionBound', 'SummaryAccepted', 'SummaryRejected', 'ToolDenied']);
  });

  it('a session keeps its first binding, in a replay and after a snapshot', () => {
    const projection = new Projection();
    const bind = (job: string, seq: number) => projection.apply({ ...sessionBound('s', { job, project: `/p/${job}` }, `/p/${job}`, T0), seq, version: 1 });
    bind('first-00000001', 1);
    bind('second-00000002', 2);
    expect(projection.sessionJob('s')).toEqual({ job: 'first-00000001', project: '/p/first-00000001' });
    expect(decodeSnapshot(encodeSnapshot(projection))!.sessionJob('s')).toEqual({ job: 'first-00000001', project: '/p/first-00000001' });
    // A binding is no job of its own.
    expect(projection.jobs.size).toBe(0);
  });

  it("each folder's and each repository's first job hold, in a replay and after a snapshot", () => {
    const projection = new Projection();
    const repo = { key: 'aaaaaaaaaaaaaaaa', root: 'f'.repeat(40), sub: '', name: 'parser' };
    const identified = (job: string, project: string, seq: number) => projection.apply({ type: 'JobIdentified', data: { job, project, repo, time: T0 }, seq, version: 1 });
    identified('parser-aaaaaaaa', '/a/parser', 1);
    identified('other-00000001', '/a/parser', 2);
    identified('other-00000001', '/b/parser', 3);
    for (const p of [projection, decodeSnapshot(encodeSnapshot(projection))!]) {
      expect([...p.repositories.folders.entries()]).toEqual([
        ['/a/parser', { job: 'parser-aaaaaaaa', repo }],
        ['/b/parser', { job: 'other-00000001', repo }],
      ]);
      expect(p.repositories.byKey.get(repo.key)).toBe('parser-aaaaaaaa');
      // An identification is no job of its own.
      expect(p.jobs.size).toBe(0);
    }
  });

  it('ignores a snapshot that does not decode or has another format', () => {
    const projection = new Projection();
    const good = encodeSnapshot(projection);
    expect(decodeSnapshot(good)).toBeDefined();
    expect(decodeSnapshot(Buffer.from('not msgpack at all'))).toBeUndefined();
    expect(decodeSnapshot(good.subarray(0, good.length - 3))).toBeUndefined();
    expect(decodeSnapshot(Buffer.from([0x81, 0xa6, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x63]))).toBeUndefined();
  });
});
