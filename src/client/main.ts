// The `recap` command's entry: the plain forms of status, context, chain, replay --at and
// verify (quick.ts) without yargs and the rest of the CLI; every other form, --help included, through cli.ts.
import type { DaemonSide } from './daemonSide.js';
import { reported, runQuick } from './quick.js';

/** Runs `recap` with `args`; `side` is what the composition root (src/main.ts) hands in of the daemon's. */
export function main(side: DaemonSide, args = process.argv.slice(2)): Promise<void> {
  return runQuick(args) ?? reported(args, async () => (await import('./cli.js')).runCli(args, side));
}
