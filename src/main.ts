// recap's composition root, the one file that may import every layer: the command line
// (src/client) with what only the daemon's code does (run the daemon, rebuild a log offline)
// handed in. Each is imported when its command runs, so no other command loads the daemon.
import { main as runRecap } from './client/main.js';
import { UsageError } from './client/jobCommands.js';
import type { DaemonSide } from './client/daemonSide.js';

const daemonSide: DaemonSide = {
  async runDaemon() {
    const { runDaemon, DaemonStartError } = await import('./daemon/daemon.js');
    try {
      await runDaemon();
    } catch (error) {
      if (error instanceof DaemonStartError) throw new UsageError(error.message);
      throw error;
    }
  },
  async importLog(file, logDir, onProgress) {
    const { importLog } = await import('./daemon/importLog.js');
    return importLog(file, logDir, onProgress);
  },
  async exportLines() {
    const [{ StoredLines }, { linesOfRecords }] = await Promise.all([import('./daemon/storedLines.js'), import('./daemon/eventsAnswer.js')]);
    // One buffer for every page: a page's lines are written out before the next is made.
    const lines = new StoredLines(true);
    return (records) => linesOfRecords(records, lines);
  },
};

/** The `recap` command (bin/recap.js runs it). */
export function main(args = process.argv.slice(2)): Promise<void> {
  return runRecap(daemonSide, args);
}
