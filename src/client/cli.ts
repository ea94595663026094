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
import { printChecks, runDoctor } from './doctor.js';
import { ADAPTERS } from '../agents/adapters.js';
import { AGENT_NAMES, sessionFromEnv, type AgentName } from '../agents/known.js';
import { installSystemd } from './installSystemd.js';
import { localTime, printChain, printReport, printStatus, printSubmit } from './output.js';
import { parseDuration, parseTime } from './time.js';

type Global = { json: boolean; job?: string | undefined; debug: boolean };

/** A failure the user can act on: printed as one line, no stack. */
export class UsageError extends UserError {}

const EXIT_DENIED = 2;

/** Commands that change recap's setup or gate: the user's, never run from an agent's shell. */
const SETUP_COMMANDS = new Set(['install', 'uninstall', 'trip', 'import', 'pause', 'resume']);

/**
 * What the daemon needs to find the job (it alone resolves it, as the hook's is): an
 * explicit --job or RECAP_JOB wins; else the agent session the command runs in (an agent's
 * shell tool sets its session variable, CLAUDE_CODE_SESSION_ID for one), whose job stays the one it started with;
 * else the project of this folder, as for a user at a terminal.
 */
function target(argv: Global): { job?: string; session?: string; cwd: string } {
  const job = argv.job ?? nonEmpty(process.env.RECAP_JOB);
  const session = sessionFromEnv(process.env);
  return { ...(job !== undefined ? { job } : {}), ...(session !== undefined && session.length <= 256 ? { session } : {}), cwd: process.cwd() };
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** The project of this folder: where install, uninstall and doctor look. */
function projectHere(): string {
  return projectRoot(process.cwd());
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
  const cli = yargs(args)
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
      "the job's gate: tripped or not, why, tokens, chain length",
      (y) => y,
      async (argv) => {
        const result = await call<Parameters<typeof printStatus>[0]>('status', target(argv));
        output(argv, result, () => printStatus(result));
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
      "remove recap's hooks from an agent's settings, leaving everything else",
      (y) => y.positional('target', { choices: AGENT_NAMES, demandOption: true }).option('scope', { choices: ['user', 'project'] as const, default: 'user' as const }),
      async (argv) => {
        const files = ADAPTERS[argv.target as AgentName].uninstall({ scope: argv.scope, project: projectHere(), env: process.env });
        output(argv, { files }, () =>
          process.stdout.write(files.length > 0 ? `removed recap's hooks from ${files.join(' and ')}\n` : 'recap had no hooks there; nothing changed\n'),
        );
      },
    )
    .command(
      'trip',
      'trip the gate now: the agent must summarize before anything else (--cancel opens it again)',
      (y) =>
        y
          .option('reason', { type: 'string', describe: 'why, in your words; the agent is told' })
          .option('cancel', { type: 'boolean', describe: 'open a tripped gate without a summary; what is unsummarized stays so' })
          .conflicts('cancel', 'reason'),
      async (argv) => {
        const result = await call<{ tripped: boolean; already: boolean; gate: Parameters<typeof printStatus>[0] }>('trip', {
          ...target(argv),
          ...(argv.reason !== undefined ? { note: argv.reason } : {}),
          ...(argv.cancel ? { cancel: true } : {}),
        });
        output(argv, result, () => {
          if (argv.cancel) {
            process.stdout.write(result.already ? 'the gate was not tripped; nothing changed\n' : 'trip cancelled: the gate is open\n');
            if (!result.already && result.gate.unsummarizedTokens >= result.gate.threshold) {
              process.stdout.write(
                `the ${result.gate.unsummarizedTokens} unsummarized tokens are still over the threshold: it trips again at the next call; recap pause 1h holds it off\n`,
              );
            }
          } else if (result.already) process.stdout.write('the gate was already tripped\n');
          printStatus(result.gate);
        });
      },
    )
    .command(
      'pause <duration>',
      "pause the job's gate for a while (30m, 2h, 1d): nothing counts, the gate denies nothing",
      (y) => y.positional('duration', { type: 'string', demandOption: true, describe: 'how long: 90s, 30m, 2h or 1d' }),
      async (argv) => {
        let ms: number;
        try {
          ms = parseDuration(argv.duration);
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
        const result = await call<{ until: number; extended: boolean; gate: Parameters<typeof printStatus>[0] }>('pause', { ...target(argv), until: Date.now() + ms });
        output(argv, result, () => {
          process.stdout.write(
            `${result.extended ? 'pause moved' : 'paused'}: until ${localTime(new Date(result.until).toISOString())} nothing counts and the gate denies nothing\n`,
          );
          printStatus(result.gate);
        });
      },
    )
    .command(
      'resume',
      "end a pause of the job's gate now",
      (y) => y,
      async (argv) => {
        const result = await call<{ resumed: boolean; gate: Parameters<typeof printStatus>[0] }>('resume', target(argv));
        output(argv, result, () => {
          process.stdout.write(result.resumed ? 'resumed: interactions count and the gate works again\n' : 'the gate was not paused; nothing changed\n');
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
      'check the installation: daemon, permissions, config, hooks',
      (y) => y,
      async (argv) => {
        const checks = await runDoctor(projectHere(), process.env);
        output(argv, { checks }, () => printChecks(checks));
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
      },
    );
  return configCommands(auditCommands(cli))
    .middleware((argv) => {
      // Not `daemon`: hooks start it from the agent's environment when it is down.
      const command = String(argv._[0] ?? '');
      if (SETUP_COMMANDS.has(command)) refuseInAgentShell(command);
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
