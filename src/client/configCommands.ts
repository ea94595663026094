// `recap config show | check [FILE] | allow [--user]`: the configuration in force with each
// value's source, a file's validation, and the user's approval of a changed config file.
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { refuseInAgentShell } from './agentShell.js';
import { projectRoot } from '../common/jobs.js';
import { projectConfigPath, userConfigPath } from '../common/paths.js';
import type { Allowed, PendingConfig } from '../protocol/answers.js';
import type { KeyChange } from '../events/configPolicy.js';
import { connectOrStart } from './autostart.js';
import { pendingLines, spelled } from './output.js';

type Common = { json: boolean; job?: string | undefined };

type Shown = {
  file: string;
  userFile: string;
  values: Record<string, unknown>;
  sources: Record<string, string>;
  problems: string[];
  pending?: PendingConfig;
  userPending?: PendingConfig;
};

const write = (line: string): void => void process.stdout.write(`${line}\n`);

/** The daemon finds the job and the project, as for every command: this folder's, or --job's. */
function target(argv: Common): { job?: string; cwd: string } {
  const job = argv.job ?? (process.env.RECAP_JOB || undefined);
  return { ...(job !== undefined ? { job } : {}), cwd: process.cwd() };
}

async function configOp<T>(fields: Record<string, unknown>): Promise<T> {
  const client = await connectOrStart();
  try {
    return await client.request<T>('config', fields);
  } finally {
    client.close();
  }
}

function changeLine(c: KeyChange): string {
  return `  ${c.key}: ${spelled(c.from)} -> ${spelled(c.to)} (${c.direction === 'stricter' ? 'stricter' : 'weakens the gate'})`;
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function configCommands(y: Argv<Common>): Argv<Common> {
  return y.command('config', 'show, check or approve the configuration', (c) =>
    c
      .command(
        'show',
        'the configuration in force, where each value comes from, and a change that waits for approval',
        (a) => a,
        async (argv) => {
          const shown = await configOp<Shown>(target(argv));
          if (argv.json) return write(JSON.stringify(shown, null, 2));
          write(`user config: ${shown.userFile}${existsSync(shown.userFile) ? '' : ' (not there)'}`);
          write(`project config: ${shown.file}${existsSync(shown.file) ? '' : ' (not there)'}`);
          const width = Math.max(...Object.keys(shown.values).map((k) => k.length));
          for (const [key, value] of Object.entries(shown.values)) write(`${`${key}=${spelled(value)}`.padEnd(width + 24)} ${shown.sources[key] ?? 'default'}`);
          for (const problem of shown.problems) process.stderr.write(`config problem (the last good configuration is in force): ${problem}\n`);
          if (shown.userPending) for (const line of pendingLines(shown.userPending)) write(line);
          if (shown.pending) for (const line of pendingLines(shown.pending)) write(line);
        },
      )
      .command(
        'check [file]',
        "validate a config file without applying it (default: the user config and this project's): every problem at once, each as file:line: KEY: what it allows; exit 1 on any",
        (a) => a.positional('file', { type: 'string', describe: 'the file to check' }),
        async (argv) => {
          const files = argv.file !== undefined ? [resolve(argv.file)] : [userConfigPath(), projectConfigPath(projectRoot(process.cwd()))];
          if (argv.file !== undefined && !existsSync(files[0]!)) {
            process.stderr.write(`recap: ${files[0]} does not exist; name a config file to check\n`);
            process.exitCode = 1;
            return;
          }
          // Read here, never sent to the daemon: checking applies nothing.
          // The config's schema (zod) is loaded by this command alone.
          const { checkConfigFiles } = await import('../common/configLayers.js');
          const problems = checkConfigFiles(files, process.env);
          if (argv.json) write(JSON.stringify({ files, ok: problems.length === 0, problems }, null, 2));
          else if (problems.length === 0) write(`ok: ${files.filter((f) => existsSync(f)).join(', ') || 'no config files; the defaults apply'}`);
          for (const problem of problems) process.stderr.write(`${problem}\n`);
          if (problems.length > 0) process.exitCode = 1;
        },
      )
      .command(
        'allow',
        "approve this project's config file as it is now, or with --user your own config file (run it yourself, never through the agent): shows what it changes",
        (a) =>
          a
            .option('yes', { type: 'boolean', default: false, describe: 'do not ask before approving at a terminal' })
            .option('user', { type: 'boolean', default: false, describe: `approve the user config file (${userConfigPath()}) instead of the project's` }),
        async (argv) => {
          refuseInAgentShell('config allow');
          const where = { ...target(argv), ...(argv.user ? { user: true } : {}) };
          let hash: string | undefined;
          if (process.stdin.isTTY && !argv.yes && !argv.json) {
            const shown = await configOp<Shown>(where);
            const pending = argv.user ? shown.userPending : shown.pending;
            if (pending) {
              for (const line of pendingLines(pending).slice(0, -1)) write(line);
              if (!(await confirm(`approve ${pending.file} (sha256 ${pending.hash.slice(0, 12)})? [y/N] `))) return write('not approved; nothing changed');
              hash = pending.hash;
            }
          }
          const allowed = await configOp<Allowed>({ ...where, allow: true, ...(hash !== undefined ? { hash } : {}) });
          if (argv.json) return write(JSON.stringify(allowed, null, 2));
          if (allowed.already && !existsSync(allowed.file)) return write(`there is no ${allowed.file}; nothing to approve`);
          if (allowed.already) return write(`${allowed.file} (sha256 ${allowed.hash.slice(0, 12)}) is already approved; nothing changed`);
          write(`approved ${allowed.file} (sha256 ${allowed.hash.slice(0, 12)})${allowed.changes.length > 0 ? '; now in force:' : '; it changes nothing in force'}`);
          for (const change of allowed.changes) write(changeLine(change));
          write('a later edit of the file needs a new approval before it can weaken the gate');
        },
      )
      .demandCommand(1, 'name a config command: show, check or allow'),
  );
}
