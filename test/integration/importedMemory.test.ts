// Other machines' summaries (SummaryImported, as `recap sync` appends them) in everything that
// reads the memory: the hand-over at SessionStart, search, the decision log, show, and verify,
// which also catches an imported entry altered in the log. An import never opens the gate.
import { join } from 'node:path';
import { Level } from 'level';
import { pack, unpack } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStore } from '../../src/daemon/eventStore.js';
import { entryHash, GENESIS_HASH, type ChainContent } from '../../src/events/chain.js';
import type { ChainOrigin, SummaryAccepted, SummaryImported } from '../../src/events/events.js';
import { runCli, startDaemon } from '../helpers/daemon.js';
import { endAttack, isTripped, payload, proveWayOut, runHook, trippedSandbox, type Attack } from '../helpers/gateAttack.js';
import { additionalContext } from '../helpers/hookAnswers.js';

const ALICE: ChainOrigin = { machine: 'm-4f1c2a', host: 'alice-laptop', author: 'alice@example.com' };

const FIRST = [
  'Gist: the importer takes Postgres advisory locks so two workers never ingest one batch',
  '## User Requests',
  'Alice asked for the batch importer in services/ingest/importer.go to stop double-ingesting when two workers start together.',
  '## Questions & Decisions',
  '- Take a Postgres advisory lock per batch id — two workers must never ingest the same batch',
  '## Design Choices',
  'The lock is released when the transaction ends, so a crashed worker frees its batch.',
].join('\n');

const SECOND = [
  'Gist: the importer retries a batch whose lock was held, after a jittered pause',
  '## User Requests',
  'Alice asked that a worker finding the batch locked retry later instead of failing the whole run.',
  '## Questions & Decisions',
  '- Retry a locked batch after a jittered pause of up to five seconds — a failed run costs an hour',
  '## Design Choices',
  'The retry count is logged with the batch id so a stuck batch shows up in the dashboard.',
].join('\n');

/** An entry of Alice's chain as her machine accepted it, with its real hash. */
function aliceEntry(text: string, prevHash: string, time: number): SummaryAccepted['data'] {
  const gist = text.split('\n')[0]!.slice('Gist: '.length);
  const content: ChainContent = {
    job: 'alice-job',
    level: 0,
    sections: [
      { heading: 'User Requests', tokens: 30 },
      { heading: 'Questions & Decisions', tokens: 25 },
      { heading: 'Design Choices', tokens: 20 },
    ],
    text,
    tokens: 90,
    coversThrough: 41,
    gist,
    gistBy: 'agent',
    time,
  };
  return { ...content, prevHash, hash: entryHash(prevHash, content) };
}

function imported(job: string, entry: SummaryAccepted['data'], index: number, originSeq: number): SummaryImported {
  return { type: 'SummaryImported', data: { job, origin: ALICE, index, originSeq, entry, time: Date.now() } };
}

describe("other machines' entries in this machine's memory", () => {
  let attack: Attack;
  /** The numbers the imports of Alice's two entries got in this log. */
  let seqs: number[] = [];

  beforeAll(async () => {
    attack = await trippedSandbox();
    // Alice's entries arrive while this machine's gate is tripped (the daemon stopped: LevelDB is one process's).
    await attack.daemon.stop();
    const store = await EventStore.open(join(attack.box.data, 'log'));
    const now = Date.now();
    const first = aliceEntry(FIRST, GENESIS_HASH, now - 120_000);
    const second = aliceEntry(SECOND, first.hash, now - 60_000);
    const { stored, durable } = store.append([imported(attack.job, first, 0, 12), imported(attack.job, second, 1, 30)]);
    await durable;
    await store.close();
    seqs = stored.map((e) => e.seq);
    attack.daemon = await startDaemon(attack.box);
  });

  afterAll(() => endAttack(attack));

  it('never opens the gate: tripped before the import, still tripped after it, and the way out works', async () => {
    expect(await isTripped(attack)).toBe(true);
    await proveWayOut(attack);
  });

  it("hands a new session Alice's summary whole, saying whose it is", async () => {
    const start = await runHook(attack.box.env, payload(attack, 'SessionStart', { source: 'startup' }));
    const handed = additionalContext({ stdout: start.stdout, exitCode: start.exitCode ?? -1 }, 'SessionStart');
    expect(handed).toContain(`### Summary #${seqs[1]}, from alice@example.com's chain on alice-laptop`);
    expect(handed).toContain('Retry a locked batch after a jittered pause');
    expect(handed).toMatch(/1 in this machine's chain, 2 from other machines' chains/);
  });

  it('finds her summary by its words, labelled', async () => {
    const found = await runCli(attack.box, ['search', '--job', attack.job, 'advisory lock']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(new RegExp(`^#${seqs[0]} \\[alice@example.com\\]  `, 'm'));
  });

  it('lists her decisions in the decision log, labelled', async () => {
    const log = await runCli(attack.box, ['decisions', '--job', attack.job]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(
      new RegExp(`Take a Postgres advisory lock per batch id — two workers must never ingest the same batch  \\(summary #${seqs[0]} by alice@example.com\\)`),
    );
    expect(log.stdout).toMatch(new RegExp(`Retry a locked batch .* \\(summary #${seqs[1]} by alice@example.com\\)`));
  });

  it('recap show N prints her summary whole, whose it is and its hash', async () => {
    const shown = await runCli(attack.box, ['show', String(seqs[0]), '--job', attack.job]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("from: another machine's chain, alice@example.com on host alice-laptop (machine m-4f1c2a), its summary #12 there");
    expect(shown.stdout).toContain(FIRST.split('\n')[2]!);
    expect(shown.stdout).toMatch(/^hash: [0-9a-f]{64} \(links to 000000000000\)$/m);
  });

  it('recap verify checks her entries, and names the one whose text was altered in the log', async () => {
    const intact = await runCli(attack.box, ['verify', '--job', attack.job]);
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toContain("imported: 2 entries of other machines' chains");
    await attack.daemon.stop();
    const db = new Level<Buffer, Buffer>(join(attack.box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const key = Buffer.alloc(8);
    key.writeBigUInt64BE(BigInt(seqs[1]!));
    const event = unpack(await db.get(key)) as { data: { entry: { text: string } } };
    event.data.entry.text = event.data.entry.text.replace('five seconds', 'fifty seconds');
    await db.put(key, pack(event));
    await db.close();
    attack.daemon = await startDaemon(attack.box);
    const broken = await runCli(attack.box, ['verify', '--job', attack.job]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(new RegExp(`^job \\S+, #${seqs[1]}: alice@example.com's summary #30 \\(machine m-4f1c2a, entry 1 of its chain\\) does not match its hash`, 'm'));
  });
});
