// The event logs the benchmarks read, made by the real decider: on each step a job records a
// prompt, or, once its gate has tripped, is denied a Read, and every third step submits a
// summary the decider accepts (each round's text its own: one that repeats an earlier summary
// is rejected, and a job whose summaries all are stays tripped, its log nothing but
// denials). Written in synced batches, with a snapshot every `snapshotEvery` events thinned
// by the store as the daemon's are, and the audit page's chunks as the daemon writes them.
import { join } from 'node:path';
import { ROOT } from './daemon.mjs';

const dist = (p) => import(join(ROOT, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { Projection } = await dist('daemon/projection.js');
const { encodeSnapshot } = await dist('daemon/snapshot.js');
const { AuditChunkWriter } = await dist('daemon/auditChunkWriter.js');
const { chunkEvents } = await dist('daemon/auditChunks.js');
const { checkTool, recordInteraction } = await dist('events/gate.js');
const { submitSummary } = await dist('events/summaries.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { wordsCounter } = await dist('events/tokens.js');
const { CURRENT_VERSION } = await dist('events/events.js');

/** What the benchmarks' prompts ask for: the summaries below are about the same work. */
export const PROMPT = 'Please make the parser report every error with its line and key, and keep going after the first one. ';

/**
 * The summary of round `n` under `sections`: a number every few words, so no run of words
 * repeats an earlier round's, on the prompts' own subject.
 */
export function roundSummary(sections, n) {
  const gist = `Gist: round ${1000 + (n % 800) * 100} of the parser work, its error report with lines and keys\n\n`;
  return (
    gist +
    sections
      .map((s, i) => {
        // Numbers of four or five digits: longer ones would make the text compress like repetition.
        const k = 1000 + (n % 800) * 100 + i * 7;
        return `## ${s}\n${[0, 1, 2]
          .map(
            (j) =>
              `Round ${k + j} of the parser work covered ${k + j + 3} errors, ${k + j + 5} lines and ${k + j + 9} keys in ${k + j + 11} files, reported with ${k + j + 13} line numbers after the first one.`,
          )
          .join(' ')}`;
      })
      .join('\n\n')
  );
}

/**
 * Makes a log of `size` events in `dir`: step `i` is job `jobOf(i)` at time `timeOf(i)`,
 * its prompt `promptOf(i)`; `config` adds to the defaults (words counted, x 1.3). Resolves
 * to the events' count by type and the sequence numbers of the snapshots kept.
 */
export async function makeDecidedLog(dir, { size, snapshotEvery, config: overrides = {}, jobOf, timeOf, promptOf }) {
  const config = { ...DEFAULT_CONFIG, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3, ...overrides };
  const ctx = { config, count: wordsCounter(1.3), recapPaths: new Set(), protected: { paths: ['/nonexistent/recap'], home: '/nonexistent' } };
  const store = await EventStore.open(dir);
  const projection = new Projection();
  const types = {};
  /** Accepted summaries: how many, and their texts (a submission is checked against the newest). */
  let accepted = 0;
  const texts = new Map();
  let batch = [];
  const snapshots = [];
  const write = async () => {
    await store.writeStored(batch);
    batch = [];
    // One at a time: the store writes only the newest of the snapshots queued together.
    for (const snapshot of snapshots.splice(0)) await store.writeSnapshot(snapshot.seq, snapshot.bytes);
  };
  let seq = 0;
  for (let i = 0; seq < size; i += 1) {
    const job = jobOf(i);
    const now = timeOf(i);
    const state = projection.view(job);
    const decision = state.gate.tripped
      ? i % 3 === 0
        ? submitSummary({ type: 'SubmitSummary', job, text: roundSummary(config.REQUIRED_SECTIONS, accepted), now }, state, { ...ctx, texts })
        : checkTool({ type: 'CheckTool', job, call: { name: 'Read', kind: 'read', paths: ['/src/a.ts'], input: { file_path: '/src/a.ts' } }, now }, state, ctx)
      : recordInteraction({ type: 'RecordInteraction', job, kind: 'prompt', text: promptOf(i), now }, state, ctx);
    for (const event of decision.events) {
      if (seq >= size) break;
      seq += 1;
      const stored = { ...event, seq, version: CURRENT_VERSION[event.type] };
      projection.apply(stored);
      batch.push(stored);
      types[event.type] = (types[event.type] ?? 0) + 1;
      if (event.type === 'SummaryAccepted') {
        accepted += 1;
        texts.set(seq, event.data.text);
      }
      if (seq % snapshotEvery === 0) snapshots.push({ seq, bytes: encodeSnapshot(projection) });
    }
    if (batch.length >= 10_000) await write();
  }
  await write();
  // The audit page's chunks, as the daemon writes them each time its log passes a window's end.
  const chunks = new AuditChunkWriter(store, chunkEvents(process.env), (error) => {
    throw error;
  });
  await chunks.catchUp();
  await chunks.stop();
  const kept = await store.snapshotSeqs();
  await store.close();
  return { types, snapshots: kept };
}
