// The spool of prompts recap-hook answered without the daemon (down, stopped, failing): each
// kept as a file of its own in recap's data folder (protected from the agent's tools), for the
// daemon to record, as if it had just arrived, when it answers again (src/daemon/spoolTaker.ts).
// Node built-ins only: recap-hook writes it. A file is written under a temporary name and
// renamed, so the daemon never reads half of one; the folder is capped in files and bytes, so
// a flood of prompts cannot fill the disk.
import { closeSync, constants as fs, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_HOOK_PAYLOAD } from './frames.js';
import { dataDir } from './paths.js';

export const SPOOL_VERSION = 1;
/** At most this many prompts wait in the spool; the next is not kept. */
export const SPOOL_MAX_ENTRIES = 500;
/** At most this many bytes wait in the spool: room for one prompt of the largest size recap counts, and more. */
export const SPOOL_MAX_BYTES = 2 * MAX_HOOK_PAYLOAD;
/**
 * No spooled prompt's file is larger than the whole spool may be (its JSON may be larger than
 * the payload recap-hook read: escapes); the daemon reads nothing larger.
 */
export const SPOOL_ENTRY_MAX_BYTES = SPOOL_MAX_BYTES;

/** A prompt's id: recap-hook sends it with the prompt too, so a prompt both sent and kept is recorded once. */
export const PROMPT_ID = /^[0-9a-z]{1,16}(?:-[0-9a-z]{1,16}){2}$/;

/** One spooled prompt: the agent's own payload, as the daemon would have got it, and when it came. */
export type SpooledPrompt = { version: typeof SPOOL_VERSION; id: string; agent: string; at: number; payload: Record<string, unknown> };

/** A prompt as recap-hook marks it before sending it: its id, and when it came (ms since the epoch). */
export type PromptMark = { id: string; at: number };

/** The spool folder, in recap's data folder. */
export function spoolDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'spool');
}

/**
 * A new prompt id: the time, the process and a random part. Not a secret (a program of the
 * user's can read the spool anyway); it only has to be unique.
 */
export function newPromptId(now = Date.now()): string {
  return `${now.toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 12) || '0'}`;
}

/** A spooled prompt's file name: its time first, so the names sort in the order the prompts came. */
export function entryName(mark: PromptMark): string {
  return `${String(mark.at).padStart(15, '0')}-${mark.id}.json`;
}

/** An entry's name, read back: undefined for a name recap-hook does not write. */
export function parseEntryName(name: string): PromptMark | undefined {
  const match = /^(\d{15})-(.+)\.json$/.exec(name);
  if (match === null || !PROMPT_ID.test(match[2]!)) return undefined;
  return { at: Number(match[1]), id: match[2]! };
}

export type KeptPrompt = { kept: true; file: string } | { kept: false; why: string };

/**
 * Keeps a prompt in the spool. Never throws: when it cannot be kept (the spool full, the disk
 * full, the folder not recap's), it says why.
 */
export function keepPrompt(entry: SpooledPrompt, env: NodeJS.ProcessEnv = process.env): KeptPrompt {
  const dir = spoolDir(env);
  const text = Buffer.from(JSON.stringify(entry));
  const temporary = join(dir, `.${entry.id}.tmp`);
  let fd: number | undefined;
  try {
    const room = roomIn(dir, text.length);
    if (room !== undefined) return { kept: false, why: room };
    // Never through a link: a file put in its place is not written through.
    fd = openSync(temporary, fs.O_WRONLY | fs.O_CREAT | fs.O_EXCL | fs.O_NOFOLLOW, 0o600);
    for (let written = 0; written < text.length;) written += writeSync(fd, text, written, text.length - written);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    const file = join(dir, entryName(entry));
    renameSync(temporary, file);
    return { kept: true, file };
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // Never made, or already gone.
    }
    const { code, message } = error as NodeJS.ErrnoException;
    return { kept: false, why: code === 'ENOSPC' ? 'the disk is full' : `it could not be written: ${code ?? message}` };
  }
}

/** Why `bytes` more do not fit in the spool (made if missing), or undefined when they do. */
function roomIn(dir: string, bytes: number): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return `${dir} is not a folder of the user's own`;
  // Only the spool's own entries count: files of other names (which the daemon's taker leaves
  // alone) must not fill it for good.
  const names = readdirSync(dir).filter((name) => parseEntryName(name) !== undefined);
  if (names.length >= SPOOL_MAX_ENTRIES) return `the spool already holds ${names.length} prompts, the most it keeps`;
  let used = 0;
  for (const name of names) {
    try {
      used += lstatSync(join(dir, name)).size;
    } catch {
      // Taken by the daemon meanwhile.
    }
  }
  if (used + bytes > SPOOL_MAX_BYTES) return `the spool already holds ${Math.round(used / 1024)} KiB, and this prompt would take it past its ${SPOOL_MAX_BYTES / 1024 / 1024} MiB`;
  return undefined;
}
