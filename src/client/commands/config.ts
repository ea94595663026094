// `recap config show | check [FILE] | allow [--user]`: the configuration in force with each
// value's source, a file's validation, and the user's approval of a changed config file.
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import { projectRoot } from '../../common/jobs.js';
import { projectConfigPath, userConfigPath } from '../../common/paths.js';
import type { Allowed } from '../../protocol/answers.js';
import type { ConfigShown, RequestFields, ResponseOf } from '../../protocol/protocol.js';
import { refuseInAgentShell } from '../agentShell.js';
import { ask, type Builder } from '../jobCommands.js';
import { printAllowed, printChecked, printConfig } from '../present/config.js';
import { pendingLines } from '../present/gate.js';
import { documented } from './docs.js';

const write = (line: string): void => void process.stdout.write(`${line}\n`);

/** The daemon finds the job and the project, as for every command: this folder's, or --job's. */
function target(argv: { job?: string | undefined }): { job?: string; cwd: string } {
  const job = argv.job ?? (process.env.RECAP_JOB || undefined);
  return { ...(job !== undefined ? { job } : {}), cwd: process.cwd() };
}

/** The configuration as the daemon shows it (asked without `allow`). */
async function shown(fields: RequestFields<'config'>): Promise<ConfigShown> {
  return configShown(await ask('config', fields));
}

/** The approval the daemon made (asked with `allow`). */
async function allowed(fields: RequestFields<'config'>): Promise<Allowed> {
  const answer = await ask('config', { ...fields, allow: true });
  if ('values' in answer) throw new Error('the recap daemon showed the configuration instead of approving it');
  return answer;
}

function configShown(answer: ResponseOf<'config'>): ConfigShown {
  if (!('values' in answer)) throw new Error('the recap daemon approved the configuration instead of showing it');
  return answer;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export const configCommands: Builder = (y) =>
  y.command('config', 'show, check or allow the configuration', (c) =>
    documented(c, 'config')
      .command(
        'show',
        'the configuration in force, where each value comes from, and a change that waits for approval',
        (a) => documented(a, 'config'),
        async (argv) => {
          const config = await shown(target(argv));
          if (argv.json) return write(JSON.stringify(config, null, 2));
          printConfig(config);
        },
      )
      .command(
        'check [file]',
        "validate a config file without applying it (default: the user config and this project's): every problem at once, each as file:line: KEY: what it allows; exit 1 on any",
        (a) => documented(a, 'config').positional('file', { type: 'string', describe: 'the file to check' }),
        async (argv) => {
          const files = argv.file !== undefined ? [resolve(argv.file)] : [userConfigPath(), projectConfigPath(projectRoot(process.cwd()))];
          if (argv.file !== undefined && !existsSync(files[0]!)) {
            process.stderr.write(`recap: ${files[0]} does not exist; name a config file to check\n`);
            process.exitCode = 1;
            return;
          }
          // Read here, never sent to the daemon: checking applies nothing.
          // The config's schema (zod) is loaded by this command alone.
          const { checkConfigFiles } = await import('../../common/configLayers.js');
          const problems = checkConfigFiles(files, process.env);
          printChecked(files, problems, argv.json);
          if (problems.length > 0) process.exitCode = 1;
        },
      )
      .command(
        'allow',
        "approve this project's config file as it is now, or with --user your own config file (run it yourself, never through the agent): shows what it changes",
        (a) =>
          documented(a, 'config')
            .option('yes', { type: 'boolean', default: false, describe: 'do not ask before approving at a terminal' })
            .option('user', { type: 'boolean', default: false, describe: `approve the user config file (${userConfigPath()}) instead of the project's` }),
        async (argv) => {
          refuseInAgentShell('config allow');
          const where = { ...target(argv), ...(argv.user ? { user: true } : {}) };
          let hash: string | undefined;
          if (process.stdin.isTTY && !argv.yes && !argv.json) {
            const config = await shown(where);
            const pending = argv.user ? config.userPending : config.pending;
            if (pending) {
              for (const line of pendingLines(pending).slice(0, -1)) write(line);
              if (!(await confirm(`approve ${pending.file} (sha256 ${pending.hash.slice(0, 12)})? [y/N] `))) return write('not approved; nothing changed');
              hash = pending.hash;
            }
          }
          const approval = await allowed({ ...where, ...(hash !== undefined ? { hash } : {}) });
          if (argv.json) return write(JSON.stringify(approval, null, 2));
          printAllowed(approval);
        },
      )
      .demandCommand(1, 'name a config command: show, check or allow'),
  );
