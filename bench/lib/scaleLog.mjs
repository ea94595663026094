// The logs of bench/scale.mjs, up to ten million events, built without a daemon: the real
// decider (recap's own pure domain code, dist/events) decides each command against a real
// projection, and the events go to LevelDB in large batches through the store's own
// encoding (EventStore.writeStored: encodeKey and encodeEvent, the bytes the daemon writes),
// with a snapshot every SNAPSHOT_EVERY events encoded and thinned as the daemon's are. So the
// log is one recap would have written, hash chain and all (`recap verify` passes on it); only
// the socket, the hooks and a fsync per command are skipped, which is what makes it quick.
//
// Its rounds are an agent's: a session starts now and then (SessionBound), the user writes a
// prompt, the agent makes tool calls whose outputs are recorded (not counted, as by default),
// until the prompts reach the token threshold and the gate trips; the agent's next call is
// denied, it submits a summary and the decider accepts it (a few hundred events per round).
// JOBS jobs take turns. Built logs are kept in a cache folder, so a rerun does not rebuild.
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../daemon.mjs';
import { PROMPT, roundSummary } from '../decidedLog.mjs';

const dist = (p) => import(join(ROOT, 'dist', p));
const { EventStore } = await dist('daemon/eventStore.js');
const { Projection } = await dist('daemon/projection.js');
const { encodeSnapshot, SNAPSHOT_FORMAT } = await dist('daemon/snapshot.js');
const { AuditChunkWriter } = await dist('daemon/auditChunkWriter.js');
const { AUDIT_CHUNK_FORMAT, chunkEvents } = await dist('daemon/auditChunks.js');
const { EventPacker, packEvents } = await dist('daemon/eventPacker.js');
const { LOG_FORMAT } = await dist('daemon/logKeys.js');
const { checkTool, recordInteraction } = await dist('events/gate.js');
const { submitSummary } = await dist('events/summaries.js');
const { sessionBound } = await dist('events/sessions.js');
const { DEFAULT_CONFIG } = await dist('events/config.js');
const { wordsCounter } = await dist('events/tokens.js');
const { CURRENT_VERSION } = await dist('events/events.js');

/** The daemon's default (RECAP_SNAPSHOT_EVERY). */
export const SNAPSHOT_EVERY = 10_000;
export const JOBS = 20;
/** Tool calls after each prompt, and rounds (summaries) per session. */
const CALLS_PER_PROMPT = 30;
const ROUNDS_PER_SESSION = 3;
/** Each job's newest summaries kept for the decider (it checks a submission against its EARLIER_CHECKED newest). */
const RECENT_TEXTS = 10;
/** Events per LevelDB batch. */
const BATCH = 20_000;
/** Six months of work for the largest log: an event every STEP_MS. */
const STEP_MS = 1500;
const START = Date.UTC(2026, 0, 1);
/** Bumped when the builder writes other rounds, or the packer other packs: a cached log of another shape is not reused. */
const BUILDER_VERSION = 3;

/** The project folder of job `j`: the daemon's checks and hooks name files in it. */
export const projectOf = (j) => `/home/dev/src/project-${j}`;
export const jobOf = (j) => `job-${String(j).padStart(2, '0')}`;

/**
 * The cache folder: $RECAP_BENCH_CACHE, or one in the temporary folder named after what
 * makes a log differ (the builder, the events' schema versions, the snapshot format).
 */
export function cacheDir() {
  // The log's format too: a log with packs must not be read by a build that does not know them.
  const shape = createHash('sha256').update(JSON.stringify({ BUILDER_VERSION, CURRENT_VERSION, SNAPSHOT_FORMAT, LOG_FORMAT })).digest('hex').slice(0, 12);
  return process.env.RECAP_BENCH_CACHE ?? join(tmpdir(), `recap-scale-${shape}`);
}

/** A tool call's output as the PostToolUse hook records it. */
const toolOutput = (j, n) =>
  `Read ${projectOf(j)}/src/parser/part${n % 40}.ts: 120 lines; the error report keeps the line ${n % 997} and the key "field${n % 53}" of each error, and goes on after the first.`;

/**
 * Builds a log of `size` events in `dir` (a LevelDB folder). Resolves to the events by type,
 * the sequence numbers of the snapshots kept and the build's seconds.
 */
export async function buildLog(dir, size, progress = () => undefined) {
  const started = performance.now();
  const config = { ...DEFAULT_CONFIG, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1.3 };
  const ctx = { config, count: wordsCounter(1.3), recapPaths: new Set(), protected: { paths: ['/nonexistent/recap'], home: '/nonexistent' } };
  const store = await EventStore.open(dir);
  const projection = new Projection();
  const types = {};
  /** The jobs' newest accepted summary texts by sequence number, and which are each job's. */
  const texts = new Map();
  const recent = new Map();
  let batch = [];
  let pendingSnapshot;
  let seq = 0;
  let now = START;
  let accepted = 0;
  const flush = async () => {
    await store.writeStored(batch);
    batch = [];
    if (pendingSnapshot) await store.writeSnapshot(pendingSnapshot.seq, pendingSnapshot.bytes);
    pendingSnapshot = undefined;
  };
  /** Stores a decision's events; false once the log is full. */
  const store1 = async (events) => {
    for (const event of events) {
      if (seq >= size) return false;
      seq += 1;
      now += STEP_MS;
      const stored = { ...event, seq, version: CURRENT_VERSION[event.type] };
      projection.apply(stored);
      batch.push(stored);
      types[event.type] = (types[event.type] ?? 0) + 1;
      // As the daemon: a snapshot when a multiple of SNAPSHOT_EVERY is crossed. None in the
      // last window (but in a log of one window), so that start-up replays SNAPSHOT_EVERY
      // events after the newest, as a daemon stopped just before its next snapshot does.
      if (seq % SNAPSHOT_EVERY === 0 && (seq <= size - SNAPSHOT_EVERY || seq === SNAPSHOT_EVERY)) pendingSnapshot = { seq, bytes: encodeSnapshot(projection) };
      if (batch.length >= BATCH) {
        await flush();
        progress(seq);
      }
    }
    return seq < size;
  };
  const sessions = new Map();
  outer: for (let round = 0; ; round += 1) {
    const j = (round * 7) % JOBS;
    const job = jobOf(j);
    const jobRound = Math.floor(round / JOBS);
    const session = `session-${j}-${Math.floor(jobRound / ROUNDS_PER_SESSION)}`;
    const common = { job, session, agent: 'claude' };
    if (sessions.get(job) !== session) {
      sessions.set(job, session);
      if (!(await store1([sessionBound(session, { job, project: projectOf(j) }, projectOf(j), now)]))) break;
    }
    for (let p = 0; !projection.view(job).gate.tripped; p += 1) {
      const prompt = recordInteraction({ type: 'RecordInteraction', ...common, kind: 'prompt', text: `${PROMPT} (${round}.${p})`, now }, projection.view(job), ctx);
      if (!(await store1(prompt.events))) break outer;
      for (let c = 0; c < CALLS_PER_PROMPT && !projection.view(job).gate.tripped; c += 1) {
        const output = recordInteraction({ type: 'RecordInteraction', ...common, kind: 'tool', text: toolOutput(j, round * 1000 + p * 50 + c), now }, projection.view(job), ctx);
        if (!(await store1(output.events))) break outer;
      }
    }
    const file = `${projectOf(j)}/src/parser/part${round % 40}.ts`;
    const denied = checkTool({ type: 'CheckTool', ...common, call: { name: 'Read', kind: 'read', paths: [file], input: { file_path: file } }, now }, projection.view(job), ctx);
    if (!(await store1(denied.events))) break;
    // A text the decider rejects (too close to an earlier one) is written again, as an agent would.
    let submitted;
    for (let attempt = 0; attempt < 5 && !submitted?.answer.accepted; attempt += 1) {
      // Grounded as the decider asks: it names prompts and files of its window.
      const text = `${roundSummary(config.REQUIRED_SECTIONS, accepted + attempt * 397)} Prompts ${round}.0 and ${round}.1 asked for it; ${projectOf(j)}/src/parser/part${(round * 1000) % 40}.ts holds it.`;
      submitted = submitSummary({ type: 'SubmitSummary', job, text, now }, projection.view(job), { ...ctx, texts });
    }
    if (!submitted.answer.accepted) throw new Error(`the decider rejected every summary of round ${round}: ${JSON.stringify(submitted.answer).slice(0, 400)}`);
    if (!(await store1(submitted.events))) break;
    accepted += 1;
    const summary = submitted.events.find((e) => e.type === 'SummaryAccepted');
    // The job's newest texts stay (submitSeqs: a submission is checked against them).
    const mine = (recent.get(job) ?? []).concat(seq);
    recent.set(job, mine);
    texts.set(seq, summary.data.text);
    if (mine.length > RECENT_TEXTS) texts.delete(mine.shift());
  }
  await flush();
  const snapshots = await store.snapshotSeqs();
  await store.close();
  return { types, snapshots, seconds: (performance.now() - started) / 1000 };
}

/**
 * The log of `size` events from the cache, built there first when it is not; copied to
 * `dir`/log, where the daemon may write (a table file never changes once written, so those
 * are hard links; the rest, small, is copied). Resolves to what the build said, and whether
 * it was built now.
 */
export async function cachedLog(size, dir, progress) {
  const cached = join(cacheDir(), String(size));
  const about = join(cached, 'built.json');
  let built = false;
  if (!existsSync(about)) {
    rmSync(cached, { recursive: true, force: true });
    const building = `${cached}.building`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const result = await buildLog(join(building, 'log'), size, progress);
    writeFileSync(join(building, 'built.json'), JSON.stringify(result));
    renameSync(building, cached);
    built = true;
  }
  await keepAsTheDaemonWould(cached, about);
  const log = join(dir, 'log');
  mkdirSync(log, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(join(cached, 'log'))) {
    const from = join(cached, 'log', name);
    if (name.endsWith('.ldb') || name.endsWith('.sst')) linkSync(from, join(log, name));
    else cpSync(from, join(log, name));
  }
  const result = JSON.parse(readFileSync(about, 'utf8'));
  return { ...result, built, bytes: folderBytes(join(cached, 'log')) };
}

/**
 * What a daemon that wrote the log would have kept beside its events, added to a cached log
 * once (built.json says so): the audit page's chunks, which the daemon writes each time its
 * log passes a window's end, the snapshots' heads, which it writes with each snapshot, and
 * the packs its older events are kept in.
 */
async function keepAsTheDaemonWould(cached, about) {
  const built = JSON.parse(readFileSync(about, 'utf8'));
  // Kept again when the chunks' format changed (the writer rewrites the chunks of another format).
  const kept = `audit chunks of format ${AUDIT_CHUNK_FORMAT}`;
  if (built.keptAsTheDaemon === kept) return;
  const started = performance.now();
  const store = await EventStore.open(join(cached, 'log'));
  const chunks = new AuditChunkWriter(store, chunkEvents(process.env), (error) => {
    throw error;
  });
  await chunks.catchUp();
  await chunks.stop();
  await store.snapshotSeqs(); // a log without heads is listed from its pieces, and its heads written
  await packAsTheDaemonWould(store);
  await store.close();
  writeFileSync(about, JSON.stringify({ ...built, keptAsTheDaemon: kept, keptSeconds: (performance.now() - started) / 1000 }));
}

const folderBytes = (dir) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

/** Puts the events of `store` (an EventStore) in packs, by the daemon's own packer, as a daemon keeps its log. */
export async function packAsTheDaemonWould(store) {
  const packer = new EventPacker(store, packEvents(process.env), {
    failed: (error) => {
      throw error;
    },
  });
  await packer.catchUp();
  await packer.stop();
}
