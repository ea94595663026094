// The `recap` command line: a thin client of the daemon's ops, plus `recap daemon`.
// Exit codes: 0 success or allowed, 2 denied or rejected, 1 anything else.
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { UserError } from '../common/errors.js';
import { projectRoot } from '../common/jobs.js';
import { refuseInAgentShell } from './agentShell.js';
import { auditCommands } from './auditCommands.js';
import { configCommands } from './configCommands.js';
import { connectOrStart } from './autostart.js';
import { fixDoctor, printChecks, printFixed, runDoctor } from './doctor.js';
import { ADAPTERS } from '../agents/adapters.js';
import { AGENT_NAMES, sessionFromEnv, type AgentName } from '../agents/known.js';
import { installSystemd, uninstallSystemd } from './installSystemd.js';
import { printChain, printReport, printStatus, printSubmit } from './output.js';
import { parseTime } from './time.js';
import type { Stopped } from './lifecycle.js';

type Global = { json: boolean; job?: string | undefined; debug: boolean };

/** A failure the user can act on: printed as one line, no stack. */
export class UsageError extends UserError {}

const EXIT_DENIED = 2;

/** Commands that change recap's setup or gate: the user's, never run from an agent's shell. */
const SETUP_COMMANDS = new Set(['install', 'uninstall', 'trip', 'import', 'stop', 'restart', 'reload']);

/**
 * What the daemon needs to find the job (it alone resolves it, as the hook's is): an
 * explicit --job or RECAP_JOB wins; else the agent session the command runs in (an agent's
 * shell tool sets its session variable, CLAUDE_CODE_SESSION_ID for one), whose job stays the one it started with;
 * else the project of this folder, as for a user at a terminal.
 */
function target(argv: Global): { job?: string; session?: string; cwd?: string } {
  const job = argv.job ?? nonEmpty(process.env.RECAP_JOB);
  const session = sessionFromEnv(process.env);
  // A named job needs no folder: it still works in a folder removed under the shell.
  const cwd = job !== undefined ? currentFolder() : here();
  return { ...(job !== undefined ? { job } : {}), ...(session !== undefined && session.length <= 256 ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) };
}

/** The current folder, or undefined when it was removed under this shell. */
function currentFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

function here(): string {
  const folder = currentFolder();
  if (folder === undefined) throw new UsageError('the current folder no longer exists (it was removed); cd to a folder that does, or give --job');
  return folder;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * Whether `recap status` has a job to show: a --job, RECAP_JOB or agent session names one;
 * else this folder's project does, unless the folder is gone (a shell left in a removed
 * folder), and then the daemon's status is shown instead.
 */
function jobResolvable(argv: Global): boolean {
  if (argv.job !== undefined || nonEmpty(process.env.RECAP_JOB) !== undefined || sessionFromEnv(process.env) !== undefined) return true;
  return currentFolder() !== undefined;
}

function describeStop(stopped: Stopped): string {
  if (!stopped.stopped) return `no recap daemon is running on ${stopped.dataDir}; nothing to stop`;
  const how = stopped.by === 'signal' ? " (it did not answer on this shell's socket: stopped by its PID)" : '';
  const again = stopped.systemd ? "; systemd's recap.socket starts it again on the next use (systemctl --user stop recap.socket keeps it stopped)" : '';
  return `stopped the recap daemon (PID ${stopped.pid})${how}${again}`;
}

/** The project of this folder: where install, uninstall and doctor look. */
function projectHere(): string {
  return projectRoot(here());
}

async function call<T>(op: string, fields: Record<string, unknown>): Promise<T> {
  const client = await connectOrStart();
  try {
    return await client.request<T>(op, fields);
  } finally {
    client.close();
  }
}

async function readInput(file: string | undefined, what: string): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (process.stdin.isTTY) process.stderr.write(`recap: reading the ${what} from stdin; end it with Ctrl-D\n`);
  // A stream, not readFileSync(0): stdin may be a non-blocking pipe.
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function output(argv: Global, result: unknown, human: () => void): void {
  if (argv.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else human();
}

export function buildCli(args: string[]): Argv {
  // yargs reads the current folder itself, and throws when it is gone.
  const cli = yargs(args, currentFolder() ?? '/')
    .scriptName('recap')
    .usage(
      "$0 <command> [options]\n\nKeeps an AI coding agent's conversation legible: counts its interactions, gates its tools until it writes a summary, keeps the summaries in a hash-linked chain.",
    )
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
    .option('job', { type: 'string', describe: "the job (default: RECAP_JOB, else the agent session's job, else the project folder's)" })
    .option('debug', { type: 'boolean', default: false, describe: 'show stack traces of unexpected errors' })
    .command('daemon', 'run the daemon in the foreground', {}, async () => {
      const { runDaemon, DaemonStartError } = await import('../daemon/daemon.js');
      try {
        await runDaemon();
      } catch (error) {
        if (error instanceof DaemonStartError) throw new UsageError(error.message);
        throw error;
      }
    })
    .command(
      'status',
      "the job's gate: tripped or not, why, tokens, chain length; with --daemon, the daemon's",
      (y) => y.option('daemon', { type: 'boolean', default: false, describe: 'the daemon instead: PID, version, uptime, socket, data folder, log size' }),
      async (argv) => {
        if (argv.daemon || !jobResolvable(argv)) {
          const { daemonState, printDaemonState } = await import('./lifecycle.js');
          const state = await daemonState();
          output(argv, state, () => printDaemonState(state));
          if (!state.running) process.exitCode = 1;
          return;
        }
        const result = await call<Parameters<typeof printStatus>[0]>('status', target(argv));
        output(argv, result, () => printStatus(result));
      },
    )
    .command(
      'stop',
      'stop the daemon: it answers what is in flight, then closes the log (the next recap command starts it again)',
      (y) => y,
      async (argv) => {
        const { stopDaemon } = await import('./lifecycle.js');
        const result = await stopDaemon();
        output(argv, result, () => process.stdout.write(`${describeStop(result)}\n`));
      },
    )
    .command(
      'restart',
      'stop the daemon (wherever it listens) and start it for this shell, e.g. after upgrading recap',
      (y) => y,
      async (argv) => {
        const { restartDaemon } = await import('./lifecycle.js');
        const result = await restartDaemon();
        output(argv, result, () =>
          process.stdout.write(
            `${result.stopped.stopped ? describeStop(result.stopped) : 'no recap daemon was running'}\nstarted the recap daemon (PID ${result.now.pid}, recap ${result.now.version}) on ${result.now.socket}\n`,
          ),
        );
      },
    )
    .command(
      'reload',
      "make the daemon re-read the user's config (as SIGHUP does)",
      (y) => y,
      async (argv) => {
        const { reloadDaemon } = await import('./lifecycle.js');
        const result = await reloadDaemon();
        output(argv, result ?? { reloaded: false }, () => {
          if (!result) process.stdout.write('no recap daemon is running; it reads the config when it starts\n');
          else if (result.problems.length === 0) process.stdout.write(`the daemon re-read ${result.file}\n`);
          else process.stderr.write(`${result.file} has problems; the daemon keeps the last good configuration:\n${result.problems.join('\n')}\n`);
        });
        if (result && result.problems.length > 0) process.exitCode = 1;
      },
    )
    .command(
      'record',
      'record an interaction (for agents without hooks, and scripts)',
      (y) =>
        y.option('kind', { type: 'string', default: 'prompt', describe: 'prompt, qa, or another kind' }).option('text', { type: 'string', describe: 'the text (default: stdin)' }),
      async (argv) => {
        const text = argv.text ?? (await readInput('-', 'interaction'));
        const result = await call<{ seq: number; tokens: number; gate: Parameters<typeof printStatus>[0] }>('record', { ...target(argv), kind: argv.kind, text });
        output(argv, result, () => {
          process.stdout.write(`recorded #${result.seq} (${result.tokens} tokens)\n`);
          printStatus(result.gate);
        });
      },
    )
    .command(
      'check',
      'ask the gate about a tool call (exit 2 when denied)',
      (y) =>
        y
          .option('tool', { type: 'string', demandOption: true, describe: "the tool's name as the agent calls it, e.g. Bash or Read" })
          .option('input', { type: 'string', describe: "the tool's input as JSON" })
          .option('agent', { choices: AGENT_NAMES, default: 'claude' as AgentName, describe: 'whose tool names --tool and --input are in' }),
      async (argv) => {
        let input: unknown;
        if (argv.input !== undefined) {
          try {
            input = JSON.parse(argv.input);
          } catch {
            throw new UsageError(`--input is not valid JSON: ${argv.input}`);
          }
        }
        const result = await call<{ allow: boolean; reason?: string }>('check', { ...target(argv), tool: argv.tool, from: argv.agent, ...(input !== undefined ? { input } : {}) });
        output(argv, result, () => process.stdout.write(result.allow ? 'allowed\n' : 'denied\n'));
        // The reasons go to stderr, with --json too.
        if (!result.allow) process.stderr.write(`${result.reason ?? ''}\n`);
        if (!result.allow) process.exitCode = EXIT_DENIED;
      },
    )
    .command(
      'submit [stdin]',
      'submit a summary (stdin by default); on rejection print every problem (exit 2)',
      (y) =>
        y
          .positional('stdin', { type: 'string', describe: '- reads the summary from stdin (the default)' })
          .option('file', { type: 'string', alias: 'f', describe: 'read the summary from this file (- for stdin)' })
          .option('topic', { type: 'string', describe: 'keep it on the chain of this topic, apart from the main one' }),
      async (argv) => {
        // yargs reads a lone "-" as an empty string.
        if (argv.stdin !== undefined && argv.stdin !== '-' && argv.stdin !== '') {
          throw new UsageError(`recap submit takes the summary on stdin or with --file PATH, not ${JSON.stringify(argv.stdin)}`);
        }
        const text = await readInput(argv.file, 'summary');
        const result = await call<Parameters<typeof printSubmit>[0]>('submit', { ...target(argv), text, ...(argv.topic !== undefined ? { topic: argv.topic } : {}) });
        output(argv, result, () => printSubmit(result));
        if (!result.accepted) {
          process.stderr.write(`${result.problems.join('\n')}\n`);
          process.exitCode = EXIT_DENIED;
        }
      },
    )
    .command(
      'context',
      'what the agent needs now: the summary to write, or the memory',
      (y) => y,
      async (argv) => {
        const result = await call<{ text: string }>('context', target(argv));
        output(argv, result, () => process.stdout.write(`${result.text}\n`));
      },
    )
    .command(
      'chain',
      "list the job's summaries",
      (y) => y,
      async (argv) => {
        const result = await call<Parameters<typeof printChain>[0]>('chain', target(argv));
        output(argv, result, () => printChain(result));
      },
    )
    .command(
      'statusline',
      "a status-line command for Claude Code: the gate of the session's job (recap 312/500, or recap: summary needed)",
      (y) => y.option('with', { type: 'string', describe: "your own status-line command, run first on the same input; its line comes before recap's" }),
      async (argv) => {
        const { statusline } = await import('./statusline.js');
        const input = process.stdin.isTTY ? '' : await readInput(undefined, 'status');
        process.stdout.write(`${await statusline(input, argv.with, process.env)}\n`);
      },
    )
    .command(
      'install <target>',
      `add recap's hooks to an agent (${AGENT_NAMES.join(', ')}) or its user units to systemd (systemd)`,
      (y) =>
        y
          .positional('target', { choices: [...AGENT_NAMES, 'systemd'] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const, describe: "user settings, or this project's" })
          .option('http', { type: 'boolean', default: false, describe: "HTTP hooks to the daemon's loopback endpoint instead of commands" })
          .option('plugin', { type: 'boolean', default: false, describe: "as the agent's plugin (Claude Code), instead of hooks in its settings" }),
      async (argv) => {
        if (argv.target === 'systemd') {
          const files = installSystemd(process.env);
          output(argv, { files }, () => {
            process.stdout.write(`wrote ${files.join(' and ')}\nnext: systemctl --user daemon-reload && systemctl --user enable --now recap.socket\n`);
          });
          return;
        }
        const adapter = ADAPTERS[argv.target as AgentName];
        const { title } = adapter.facts;
        if (argv.http && !adapter.http) throw new UsageError(`${title} has no HTTP hooks; install recap's command hooks (leave out --http)`);
        if (argv.plugin && argv.http) throw new UsageError('--plugin and --http are two ways to install recap: choose one');
        if (argv.plugin && !adapter.plugin) throw new UsageError(`recap has no plugin for ${title}; install its hooks (leave out --plugin)`);
        const http = argv.http ? await call<{ url: string; tokenFile: string }>('http', {}) : undefined;
        const installed = adapter.install({
          scope: argv.scope,
          project: projectHere(),
          env: process.env,
          ...(http ? { http: { url: http.url, token: readFileSync(http.tokenFile, 'utf8').trim() } } : {}),
          ...(argv.plugin ? { plugin: true } : {}),
        });
        const { warnings, ...shown } = installed;
        for (const warning of warnings) process.stderr.write(`recap: warning: ${warning}\n`);
        output(argv, shown, () =>
          process.stdout.write(
            installed.mode === 'plugin'
              ? `recap's ${title} plugin ${installed.changed ? 'is installed' : 'was already installed; nothing changed'} (${installed.file}); new ${title} sessions use it\n`
              : installed.changed
                ? `recap's ${installed.mode} hooks are in ${installed.file}; new ${title} sessions use them\n`
                : `recap's ${installed.mode} hooks were already in ${installed.file}; nothing changed\n`,
          ),
        );
      },
    )
    .command(
      'uninstall <target>',
      "remove recap's hooks from an agent's settings, leaving everything else, or its user units from systemd",
      (y) =>
        y
          .positional('target', { choices: [...AGENT_NAMES, 'systemd'] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const }),
      async (argv) => {
        if (argv.target === 'systemd') {
          const files = uninstallSystemd(process.env);
          output(argv, { files }, () =>
            process.stdout.write(
              files.length > 0
                ? `removed ${files.join(' and ')}\nnext: systemctl --user stop recap.socket recap.service && systemctl --user daemon-reload\n`
                : "recap's systemd units were not installed; nothing changed\n",
            ),
          );
          return;
        }
        const files = ADAPTERS[argv.target as AgentName].uninstall({ scope: argv.scope, project: projectHere(), env: process.env });
        output(argv, { files }, () =>
          process.stdout.write(files.length > 0 ? `removed recap's hooks from ${files.join(' and ')}\n` : 'recap had no hooks there; nothing changed\n'),
        );
      },
    )
    .command(
      'trip',
      'trip the gate now: the agent must summarize before anything else',
      (y) => y.option('reason', { type: 'string', describe: 'why, in your words; the agent is told' }),
      async (argv) => {
        const result = await call<{ already: boolean; gate: Parameters<typeof printStatus>[0] }>('trip', {
          ...target(argv),
          ...(argv.reason !== undefined ? { note: argv.reason } : {}),
        });
        output(argv, result, () => {
          if (result.already) process.stdout.write('the gate was already tripped\n');
          printStatus(result.gate);
        });
      },
    )
    .command(
      'report',
      'where the tokens went: per job and agent, interactions, summaries, denials and model usage',
      (y) => y.option('since', { type: 'string', describe: 'from this time (ISO, HH:MM, or 10m/2h/3d ago)' }),
      async (argv) => {
        const since = argv.since === undefined ? undefined : parseTime(argv.since);
        const result = await call<{ jobs: Parameters<typeof printReport>[0] }>('report', {
          ...(argv.job !== undefined ? { job: argv.job } : {}),
          ...(since !== undefined ? { since } : {}),
        });
        output(argv, result, () => printReport(result.jobs));
      },
    )
    .command(
      'doctor',
      'check the installation: daemon, permissions, config, hooks; --fix repairs what it can',
      (y) =>
        y.option('fix', { type: 'boolean', default: false, describe: 'fix what recap can itself (permissions, a stale socket, hooks that point nowhere) and say what changed' }),
      async (argv) => {
        const fixed = argv.fix ? await fixDoctor(projectHere(), process.env) : undefined;
        const checks = await runDoctor(projectHere(), process.env);
        output(argv, { ...(fixed ? { fixed } : {}), checks }, () => {
          if (fixed) printFixed(fixed);
          printChecks(checks);
        });
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
      },
    );
  return configCommands(auditCommands(cli))
    .middleware((argv) => {
      // Not `daemon`: hooks start it from the agent's environment when it is down.
      const command = String(argv._[0] ?? '');
      if (SETUP_COMMANDS.has(command)) refuseInAgentShell(command);
      if (command === 'doctor' && argv.fix === true) refuseInAgentShell('doctor --fix');
    })
    .demandCommand(1, 'name a command; see recap --help')
    .recommendCommands()
    .strict()
    .help()
    .version(false)
    .fail((message, error) => {
      throw error ?? new UsageError(`${message}; see recap --help`);
    });
}

export async function main(argv = hideBin(process.argv)): Promise<void> {
  const debug = argv.includes('--debug');
  // A reader that stops early (recap log | head) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  try {
    await buildCli(argv).parseAsync();
  } catch (error) {
    process.exitCode = 1;
    if (error instanceof UserError) {
      process.stderr.write(`recap: ${error.message}\n`);
    } else if (debug) {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    } else {
      process.stderr.write(`recap: ${(error as Error).message ?? String(error)} (run with --debug for details)\n`);
    }
  }
}
