// Takes the prompts recap-hook kept while the daemon did not answer (src/common/promptSpool.ts)
// and records each as if it had just arrived, oldest first: at start, when the daemon is
// continued after a stop (SIGCONT), and every little while (a storage that failed and recovers).
// A file is removed only once its prompt is durable, and a prompt's id is recorded with it, so a
// daemon that crashes between the two does not count it twice. An entry that is not a prompt
// recap-hook kept is removed with a log line; the daemon goes on.
import { constants as fs } from 'node:fs';
import { lstat, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AGENT_NAMES, type AgentName } from '../agents/known.js';
import { parseEntryName, PROMPT_ID, SPOOL_ENTRY_MAX_BYTES, SPOOL_VERSION } from '../common/promptSpool.js';
import { StorageFailed } from './eventStore.js';
import type { SpooledOutcome } from './hookService.js';

/** How often the spool is looked at when nothing else says to. */
const SWEEP_MS = 30_000;
/** A temporary file older than this is a recap-hook that died while writing it. */
const STALE_TEMPORARY_MS = 10 * 60_000;

const entrySchema = z.object({
  version: z.literal(SPOOL_VERSION),
  id: z.string().regex(PROMPT_ID),
  agent: z.enum(AGENT_NAMES as [AgentName, ...AgentName[]]),
  at: z.number().int().positive(),
  payload: z.record(z.string(), z.unknown()),
});

export type SpoolEntry = z.infer<typeof entrySchema>;

/** An entry read back: usable, or why not. */
export type ReadEntry = { ok: true; entry: SpoolEntry } | { ok: false; why: string };

/** The entry a spool file's text holds, checked against its name (the id and time it was given). */
export function parseEntry(name: string, text: string): ReadEntry {
  const mark = parseEntryName(name);
  if (mark === undefined) return { ok: false, why: 'its name is not one recap-hook gives' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, why: 'it is not JSON' };
  }
  const parsed = entrySchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, why: `it is not a prompt recap-hook kept (${parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ')})` };
  if (parsed.data.id !== mark.id || parsed.data.at !== mark.at) return { ok: false, why: 'its id or time differs from its name' };
  return { ok: true, entry: parsed.data };
}

/** The names to take, in the order the prompts came (their names start with the time). */
export function takingOrder(names: readonly string[]): string[] {
  return names.filter((name) => !name.startsWith('.')).sort();
}

export type SpoolRecorder = (entry: SpoolEntry) => Promise<SpooledOutcome>;

export class SpoolTaker {
  private taking: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onContinue = () => void this.take('continued (SIGCONT)');

  constructor(
    private readonly dir: string,
    private readonly record: SpoolRecorder,
    private readonly log: Logger,
    /** Told of each pass that has prompts to take, so hooks wait for it. */
    private readonly passing: (pass: Promise<void>) => void = () => undefined,
  ) {}

  /** Takes the spool now, and again whenever the daemon is continued, and every SWEEP_MS. */
  start(): Promise<void> {
    process.on('SIGCONT', this.onContinue);
    this.timer = setInterval(() => void this.take('sweep'), SWEEP_MS);
    this.timer.unref();
    return this.take('start');
  }

  stop(): Promise<void> {
    process.off('SIGCONT', this.onContinue);
    clearInterval(this.timer);
    return this.taking ?? Promise.resolve();
  }

  /** One pass over the spool (one more after the pass in progress, if one is). */
  take(why: string): Promise<void> {
    if (this.taking !== undefined) {
      this.again = true;
      return this.taking;
    }
    this.taking = (async () => {
      do {
        this.again = false;
        await this.pass(why);
      } while (this.again);
    })().finally(() => (this.taking = undefined));
    return this.taking;
  }

  private async pass(why: string): Promise<void> {
    let names: string[];
    try {
      const stat = await lstat(this.dir);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.()) {
        this.log.warn({ spool: this.dir }, "the prompt spool is not a folder of the user's own: it is not taken");
        return;
      }
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err: error, spool: this.dir }, 'the prompt spool could not be read');
      return;
    }
    await this.removeStaleTemporaries(names);
    const order = takingOrder(names);
    if (order.length === 0) return;
    const pass = this.takeAll(order, why);
    this.passing(pass);
    await pass;
  }

  private async takeAll(names: string[], why: string): Promise<void> {
    let recorded = 0;
    let skipped = 0;
    let tripped = false;
    for (const name of names) {
      const file = join(this.dir, name);
      const read = await this.read(file, name);
      if (read === undefined) continue;
      if (!read.ok) {
        this.log.warn({ file, why: read.why }, `skipping a file in the prompt spool: ${read.why}`);
        skipped += 1;
        await this.remove(file);
        continue;
      }
      let outcome: SpooledOutcome;
      try {
        outcome = await this.record(read.entry);
      } catch (error) {
        if (StorageFailed.is(error)) {
          // Kept for the next pass: the log may take it once its storage recovers.
          this.log.error({ err: error, file }, 'a spooled prompt could not be recorded; it stays in the spool');
          break;
        }
        this.log.error({ err: error, file }, 'a spooled prompt failed to be recorded; it is skipped');
        skipped += 1;
        await this.remove(file);
        continue;
      }
      if (!outcome.recorded) {
        this.log.warn({ file, why: outcome.why }, `skipping a spooled prompt: ${outcome.why}`);
        skipped += 1;
      } else {
        recorded += 1;
        tripped ||= outcome.tripped;
      }
      // Only now: the prompt is durable, and its id is recorded with it.
      await this.remove(file);
    }
    this.log.info({ recorded, skipped, tripped, why }, `prompts kept while the daemon did not answer taken from the spool: ${recorded} recorded, ${skipped} skipped`);
  }

  /** A spool file's entry; undefined when it is gone (taken by another pass meanwhile). */
  private async read(file: string, name: string): Promise<ReadEntry | undefined> {
    let handle;
    try {
      // Never through a link, never blocking on a FIFO put in its place.
      handle = await open(file, fs.O_RDONLY | fs.O_NOFOLLOW | fs.O_NONBLOCK);
      const stat = await handle.stat();
      if (!stat.isFile()) return { ok: false, why: 'it is not a regular file' };
      if (stat.uid !== process.getuid?.()) return { ok: false, why: "it is not the user's own" };
      if (stat.size > SPOOL_ENTRY_MAX_BYTES) return { ok: false, why: `it is larger than a prompt recap counts (${stat.size} bytes)` };
      return parseEntry(name, await handle.readFile('utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      return { ok: false, why: code === 'ELOOP' ? 'it is a link' : `it could not be read (${code ?? (error as Error).message})` };
    } finally {
      await handle?.close();
    }
  }

  private async remove(file: string): Promise<void> {
    try {
      await unlink(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.error({ err: error, file }, 'a file could not be removed from the prompt spool');
    }
  }

  /** Removes what recap-hooks that died while writing left behind. */
  private async removeStaleTemporaries(names: string[]): Promise<void> {
    for (const name of names) {
      if (!name.startsWith('.') || !name.endsWith('.tmp')) continue;
      const file = join(this.dir, name);
      try {
        if (Date.now() - (await lstat(file)).mtimeMs > STALE_TEMPORARY_MS) await unlink(file);
      } catch {
        // Renamed or removed meanwhile.
      }
    }
  }
}
