// Which platform recap runs on: process.platform's, or one a test's launcher put in place
// before recap's code loaded (test/helpers/onFakeMacos.mjs). Nothing a user or an agent can
// set in the environment or a file switches it: putting one in place takes running code
// inside recap's own process, which can do anything a platform could anyway.
import { linux } from './linux.js';
import { macos } from './macos.js';
import type { Platform } from './platform.js';
import { unsupported } from './unsupported.js';

/** Where a launcher puts a platform of its own; read once. */
export const PLATFORM_SLOT = Symbol.for('recap.platform');

let chosen: Platform | undefined;

/** The platform recap asks. */
export function platform(): Platform {
  chosen ??= preset() ?? byName(process.platform);
  return chosen;
}

function preset(): Platform | undefined {
  const given = (globalThis as Record<symbol, unknown>)[PLATFORM_SLOT];
  return typeof given === 'object' && given !== null && typeof (given as Platform).chain === 'function' ? (given as Platform) : undefined;
}

function byName(name: NodeJS.Platform): Platform {
  if (name === 'linux') return linux;
  if (name === 'darwin') return macos;
  return unsupported;
}

/** A process and its ancestors, it first, up to (not including) pid 0; at most `limit`. */
export function processChain(from: number, limit = 64): ReturnType<Platform['chain']> {
  return platform().chain(from, limit);
}

/** One process, or undefined when it is gone or cannot be read. */
export function readProc(pid: number): ReturnType<Platform['chain']>[number] | undefined {
  return platform().chain(pid, 1)[0];
}
