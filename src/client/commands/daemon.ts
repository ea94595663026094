// The daemon's own commands: `recap daemon` (what systemd and autostart run) and the user's
// stop, restart and reload.
import type { DaemonSide } from '../daemonSide.js';
import { output, type Builder } from '../jobCommands.js';
import { documented } from './docs.js';

/** `recap daemon`, run by `side` (the daemon's code is loaded only then). */
export const daemonCommand =
  (side: DaemonSide): Builder =>
  (y) =>
    // What systemd and autostart run, not a user's command: left out of --help.
    y.command(
      'daemon',
      false,
      (a) => documented(a, 'daemon'),
      () => side.runDaemon(),
    );

/** What stop, restart and reload run and print with, loaded only when one of them runs. */
const lifecycleModules = () => Promise.all([import('../lifecycle.js'), import('../present/daemon.js')]);

/** recap stop, restart and reload: the daemon's life. */
export const lifecycleCommands: Builder = (y) =>
  y
    .command(
      'stop',
      'stop the daemon, once what is in flight is answered',
      (a) => documented(a, 'stop'),
      async (argv) => {
        const [{ stopDaemon }, { describeStop }] = await lifecycleModules();
        const result = await stopDaemon();
        output(argv, result, () => process.stdout.write(`${describeStop(result)}\n`));
      },
    )
    .command(
      'restart',
      'stop and start the daemon again (after an upgrade)',
      (a) => documented(a, 'restart'),
      async (argv) => {
        const [{ restartDaemon }, { printRestarted }] = await lifecycleModules();
        const result = await restartDaemon();
        output(argv, result, () => printRestarted(result));
      },
    )
    .command(
      'reload',
      'make the daemon re-read the config (as SIGHUP does)',
      (a) => documented(a, 'reload'),
      async (argv) => {
        const [{ reloadDaemon }, { printReloaded }] = await lifecycleModules();
        const result = await reloadDaemon();
        output(argv, result ?? { reloaded: false }, () => printReloaded(result));
        if (result && result.problems.length > 0) process.exitCode = 1;
      },
    );
