// How recap's daemon process is started, decided in one place: the Node flags and the
// environment that every way recap starts it gives it (its own autostart, the systemd unit,
// the launchd agent, the tests and benchmarks), and the command line they make. Both are
// fixed when the process starts: Node reads its heap's sizes once, glibc its malloc settings.
import { RECAP_BIN } from './bins.js';

/**
 * A young generation of at most 8 MB a half (Node's default on 64 bits: 16): under load
 * the daemon's garbage is collected sooner, and less of it reaches the old generation
 * between full collections (docs/performance.md, "Daemon memory").
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * At most two of glibc's malloc arenas (its default: eight per core), where LevelDB and
 * Node's buffers are allocated: memory freed in one can be used again by the others' next
 * allocations instead of staying in the process's RSS.
 *
 * Every block of 128 KiB or more in a mapping of its own, given back to the system when it is
 * freed. glibc's own threshold starts there but rises to the size of the largest mapped block
 * freed, so after the first snapshot (a buffer of megabytes) the snapshots' buffers and
 * LevelDB's copies of them came from the arenas, and what they freed stayed in the RSS
 * between live blocks (docs/performance.md, "Daemon memory"). Setting it keeps it fixed; the
 * price is fresh pages for each such block, which shows only in the first `recap ui`'s build.
 * macOS's malloc reads neither.
 */
export const DAEMON_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

/** The daemon's command line: this Node with DAEMON_NODE_FLAGS, recap's launcher, `daemon`. */
export function daemonCommand(node: string = process.execPath, bin: string = RECAP_BIN): string[] {
  return [node, ...DAEMON_NODE_FLAGS, bin, 'daemon'];
}

/** `env` with DAEMON_ENVIRONMENT. */
export function daemonEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, ...DAEMON_ENVIRONMENT };
}
