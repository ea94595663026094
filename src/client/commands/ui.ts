// `recap ui`: the audit page's address, its server started in the daemon if it was not; with
// --open, in the user's browser. The address holds the token that lets a browser in.
import { spawn } from 'node:child_process';
import { platform } from '../../platform/choose.js';
import { ask, output, type Builder } from '../jobCommands.js';
import { documented } from './docs.js';

export const uiCommand: Builder = (y) =>
  y.command(
    'ui',
    'the audit page: token meter, chain, usage (--open)',
    (a) => documented(a, 'ui').option('open', { type: 'boolean', default: false, describe: 'open it in your browser' }),
    async (argv) => {
      let { url } = await ask('ui', {}, 120_000);
      // With --job, the page opens on that job.
      if (argv.job !== undefined) url += `#/job/${encodeURIComponent(argv.job)}`;
      output({ json: argv.json, debug: false }, { url }, () => {
        process.stdout.write(`${url}\n`);
        if (!argv.open) process.stderr.write('Open it in a browser on this machine (recap ui --open does); the link holds your token: keep it to yourself.\n');
      });
      if (argv.open) await open(url);
    },
  );

/** Opens the URL; a missing opener is said, with the URL still printed above. */
function open(url: string): Promise<void> {
  const OPENER = platform().browserOpener;
  return new Promise((resolve) => {
    const child = spawn(OPENER, [url], { detached: true, stdio: 'ignore' });
    child.once('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(`recap: could not start ${OPENER} (${error.code ?? error.message}); open the link above in your browser\n`);
      resolve();
    });
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
