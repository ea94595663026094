// The daemon's life as people read it: `recap status --daemon`, and what stop, restart and
// reload did.
import type { ResponseOf } from '../../protocol/protocol.js';
import type { DaemonState, Stopped } from '../lifecycle.js';
import { pendingLines } from './gate.js';

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

function bytes(count: number): string {
  let value = count;
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

function duration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.floor(ms / 1000)}s`;
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  return [d ? `${d}d` : '', h ? `${h}h` : '', `${m}m`].filter(Boolean).join(' ');
}

export function printDaemonState(state: DaemonState, now = Date.now()): void {
  const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(13)}${value}\n`);
  if (!state.running) {
    line('recap daemon', state.problem ? 'running, but not reachable from this shell' : 'not running (any recap command starts it)');
    line('socket', state.socket);
    line('data folder', state.dataDir);
    if (state.problem) process.stdout.write(`${state.problem}\n`);
    return;
  }
  line('recap daemon', `running, PID ${state.pid}, recap ${state.version} (Node ${state.node}), up ${duration(now - state.started)}`);
  line('socket', state.socket);
  line('data folder', state.dataDir);
  line('event log', `${state.eventLog.events} events, ${bytes(state.eventLog.bytes)} (${state.eventLog.path})`);
  line('daemon log', 'file' in state.daemonLog ? `${state.daemonLog.file} (${bytes(state.daemonLog.bytes)})` : state.daemonLog.stream);
  line('config', state.config);
  // An older daemon does not say.
  if (state.code?.state === 'verified') line('code', `verified at start: ${state.code.files} files as recap install recorded them (${state.code.manifest})`);
  else if (state.code?.state === 'unverified') line('code', `UNVERIFIED: ${state.code.why}; run recap install <agent> in your own terminal, then recap restart`);
  for (const { socket, time } of state.takenOver ?? []) {
    line(
      'TAKEN OVER',
      `at ${new Date(time).toISOString()} another process put its socket in place of ${socket}; the daemon put its own back (see the daemon log, and run recap verify)`,
    );
  }
}

export function describeStop(stopped: Stopped): string {
  if (!stopped.stopped) return `no recap daemon is running on ${stopped.dataDir}; nothing to stop`;
  const how = stopped.by === 'signal' ? " (it did not answer on this shell's socket: stopped by its PID)" : '';
  const again = stopped.systemd ? "; systemd's recap.socket starts it again on the next use (systemctl --user stop recap.socket keeps it stopped)" : '';
  return `stopped the recap daemon (PID ${stopped.pid})${how}${again}`;
}

export function printRestarted(result: { stopped: Stopped; now: ResponseOf<'daemon'> }): void {
  process.stdout.write(
    `${result.stopped.stopped ? describeStop(result.stopped) : 'no recap daemon was running'}\nstarted the recap daemon (PID ${result.now.pid}, recap ${result.now.version}) on ${result.now.socket}\n`,
  );
}

/** What `recap reload` did: undefined when no daemon runs. */
export function printReloaded(result: ResponseOf<'reload'> | undefined): void {
  if (!result) process.stdout.write('no recap daemon is running; it reads the config when it starts\n');
  else if (result.problems.length === 0) process.stdout.write(`the daemon re-read ${result.file}\n`);
  else process.stderr.write(`${result.file} has problems; the daemon keeps the last good configuration:\n${result.problems.join('\n')}\n`);
  if (result?.pending) for (const line of pendingLines(result.pending)) process.stdout.write(`${line}\n`);
}
