// The `recap` command line: a thin client of the daemon's ops, plus `recap daemon`.
// Exit codes: 0 success or allowed, 2 denied or rejected, 1 anything else. main.ts runs the
// plain forms of status, context and chain without it. The agents' adapters (and zod with
// them), doctor and the systemd units are imported by the few commands that use them: loaded
// up front, they would more than double every command's start-up.
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { projectRoot } from '../common/jobs.js';
import { recapVersion } from '../common/version.js';
import { refuseInAgentShell } from './agentShell.js';
import { uiCommand } from './uiCommand.js';
import { auditCommands, jobOf } from './auditCommands.js';
import { configCommands } from './configCommands.js';
import { AGENT_NAMES, type AgentName } from '../agents/known.js';
import { pendingLines, printReport, printStatus, printSubmit } from './output.js';
import { call, chain, context, currentFolder, here, output, status, target, UsageError } from './jobCommands.js';
import { localTime, parseDuration, timeFlag } from './time.js';
import type { Stopped } from './lifecycle.js';

export { UsageError };

const EXIT_DENIED = 2;

/** Commands that change recap's setup or gate: the user's, never run from an agent's shell. */
const SETUP_COMMANDS = new Set(['install', 'uninstall', 'trip', 'import', 'stop', 'restart', 'reload', 'pause', 'resume']);

/** Commands that are about no one job: a --job given to them is refused, not silently ignored (and each hides it from its --help). */
const JOBLESS_COMMANDS = new Set(['install', 'uninstall', 'import', 'completion']);

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

export function buildCli(args: string[]): Argv {
  // yargs reads the current folder itself, and throws when it is gone.
  const cli = yargs(args, currentFolder() ?? '/')
    .scriptName('recap')
    .usage("$0 <command> [options]: holds an agent's tools until it writes a summary")
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
    .option('job', { type: 'string', describe: "the job (default: RECAP_JOB, the session's, the folder's)" })
    .option('debug', { type: 'boolean', default: false, describe: 'show stack traces of unexpected errors' })
    // What systemd and autostart run, not a user's command: left out of --help.
    .command('daemon', false, {}, async () => {
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
      "the job's gate and tokens; --daemon: the daemon",
      (y) => y.option('daemon', { type: 'boolean', default: false, describe: 'the daemon instead: PID, version, uptime, socket, data folder, log size' }),
      (argv) => status(argv),
    )
    .command(
      'stop',
      'stop the daemon, once it has answered what is in flight',
      (y) => y,
      async (argv) => {
        const { stopDaemon } = await import('./lifecycle.js');
        const result = await stopDaemon();
        output(argv, result, () => process.stdout.write(`${describeStop(result)}\n`));
      },
    )
    .command(
      'restart',
      'stop the daemon and start it again (after an upgrade)',
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
      'make the daemon re-read the config (as SIGHUP does)',
      (y) => y,
      async (argv) => {
        const { reloadDaemon } = await import('./lifecycle.js');
        const result = await reloadDaemon();
        output(argv, result ?? { reloaded: false }, () => {
          if (!result) process.stdout.write('no recap daemon is running; it reads the config when it starts\n');
          else if (result.problems.length === 0) process.stdout.write(`the daemon re-read ${result.file}\n`);
          else process.stderr.write(`${result.file} has problems; the daemon keeps the last good configuration:\n${result.problems.join('\n')}\n`);
          if (result?.pending) for (const line of pendingLines(result.pending)) process.stdout.write(`${line}\n`);
        });
        if (result && result.problems.length > 0) process.exitCode = 1;
      },
    )
    .command(
      'record',
      'record an interaction (for scripts and agents)',
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
      'ask the gate about a tool call (exit 2: denied)',
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
      'submit a summary (stdin or --file; 2: rejected)',
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
      'what the agent needs: the summary due, or memory',
      (y) => y,
      (argv) => context(argv),
    )
    .command(
      'chain',
      "list the job's summaries",
      (y) => y,
      (argv) => chain(argv),
    )
    .command(
      'statusline',
      // Installed into the agent's settings, not typed: left out of --help.
      false,
      (y) => y.option('with', { type: 'string', describe: "your own status-line command, run first on the same input; its line comes before recap's" }),
      async (argv) => {
        const { statusline } = await import('./statusline.js');
        const input = process.stdin.isTTY ? '' : await readInput(undefined, 'status');
        process.stdout.write(`${await statusline(input, argv.with, process.env)}\n`);
      },
    )
    .command(
      'install <target>',
      "add recap's hooks to an agent, or systemd units",
      (y) =>
        y
          .hide('job')
          .positional('target', { choices: [...AGENT_NAMES, 'systemd'] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const, describe: "user settings, or this project's" })
          .option('http', { type: 'boolean', default: false, describe: "HTTP hooks to the daemon's loopback endpoint instead of commands" })
          .option('plugin', { type: 'boolean', default: false, describe: "as the agent's plugin (Claude Code), instead of hooks in its settings" })
          .option('sandbox', { type: 'boolean', default: false, describe: "also turn on the agent's own OS sandbox, kept out of recap's files and socket (Claude Code, Codex)" }),
      async (argv) => {
        // The user's command: the code it runs is recap's, recorded for the daemon to check at
        // start (before the install itself, which may fail on the agent's files after it).
        const recordCode = async () => {
          const note = (await import('../common/codeManifest.js')).recordInstalledCode(process.env, argv.target);
          if (note !== undefined) process.stderr.write(`recap: warning: ${note}\n`);
        };
        if (argv.target === 'systemd') {
          await recordCode();
          const { installSystemd } = await import('./installSystemd.js');
          const files = installSystemd(process.env);
          output(argv, { files }, () => {
            process.stdout.write(`wrote ${files.join(' and ')}\nnext: systemctl --user daemon-reload && systemctl --user enable --now recap.socket\n`);
          });
          return;
        }
        const { ADAPTERS } = await import('../agents/adapters.js');
        const adapter = ADAPTERS[argv.target as AgentName];
        const { title } = adapter.facts;
        if (argv.http && !adapter.http) throw new UsageError(`${title} has no HTTP hooks; install recap's command hooks (leave out --http)`);
        if (argv.plugin && argv.http) throw new UsageError('--plugin and --http are two ways to install recap: choose one');
        if (argv.plugin && !adapter.plugin) throw new UsageError(`recap has no plugin for ${title}; install its hooks (leave out --plugin)`);
        if (argv.sandbox && adapter.sandbox !== true) throw new UsageError(adapter.sandbox.unsupported);
        await recordCode();
        const http = argv.http ? await call<{ url: string; tokenFile: string }>('http', {}) : undefined;
        const installed = adapter.install({
          scope: argv.scope,
          project: projectHere(),
          env: process.env,
          ...(http ? { http: { url: http.url, token: readFileSync(http.tokenFile, 'utf8').trim() } } : {}),
          ...(argv.plugin ? { plugin: true } : {}),
          ...(argv.sandbox ? { sandbox: true } : {}),
        });
        const { warnings, ...shown } = installed;
        for (const warning of warnings) process.stderr.write(`recap: warning: ${warning}\n`);
        const hooks =
          installed.mode === 'plugin'
            ? `recap's ${title} plugin ${installed.changed ? 'is installed' : 'was already installed; nothing changed'} (${installed.file}); new ${title} sessions use it\n`
            : installed.changed
              ? `recap's ${installed.mode} hooks are in ${installed.file}; new ${title} sessions use them\n`
              : `recap's ${installed.mode} hooks were already in ${installed.file}; nothing changed\n`;
        const sandbox = argv.sandbox ? `${title}'s own sandbox is on and keeps its shell out of recap's files and socket; recap's hook answers the way out\n` : '';
        output(argv, { ...shown, ...(argv.sandbox ? { sandbox: true } : {}) }, () => process.stdout.write(hooks + sandbox));
      },
    )
    .command(
      'uninstall <target>',
      "remove recap's hooks from an agent, or systemd units",
      (y) =>
        y
          .hide('job')
          .positional('target', { choices: [...AGENT_NAMES, 'systemd'] as const, demandOption: true })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const }),
      async (argv) => {
        if (argv.target === 'systemd') {
          const { uninstallSystemd } = await import('./installSystemd.js');
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
        const { ADAPTERS } = await import('../agents/adapters.js');
        const files = ADAPTERS[argv.target as AgentName].uninstall({ scope: argv.scope, project: projectHere(), env: process.env });
        output(argv, { files }, () =>
          process.stdout.write(files.length > 0 ? `removed recap's hooks from ${files.join(' and ')}\n` : 'recap had no hooks there; nothing changed\n'),
        );
      },
    )
    .command(
      'trip',
      'trip the gate now; --cancel opens it again',
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
          process.stdout.write(`${result.extended ? 'pause moved' : 'paused'}: until ${localTime(result.until)} nothing counts and the gate denies nothing\n`);
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
      'where the tokens went, per job and agent',
      (y) => y.option('since', { type: 'string', describe: 'from this time (HH:MM, ISO 8601, or 10m/2h/3d ago)' }),
      async (argv) => {
        const since = argv.since === undefined ? undefined : timeFlag(argv.since, '--since', argv.json);
        const result = await call<{ jobs: Parameters<typeof printReport>[0] }>('report', {
          ...jobOf(argv),
          ...(since !== undefined ? { since } : {}),
        });
        output(argv, result, () => printReport(result.jobs));
      },
    )
    .command(
      'doctor',
      'check the installation; --fix repairs what it can',
      (y) =>
        y.option('fix', { type: 'boolean', default: false, describe: 'fix what recap can itself (permissions, a stale socket, hooks that point nowhere) and say what changed' }),
      async (argv) => {
        const { fixDoctor, printChecks, printFixed, runDoctor } = await import('./doctor.js');
        const fixed = argv.fix ? await fixDoctor(projectHere(), process.env) : undefined;
        const checks = await runDoctor(projectHere(), process.env);
        output(argv, { ...(fixed ? { fixed } : {}), checks }, () => {
          if (fixed) printFixed(fixed);
          printChecks(checks);
        });
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
      },
    );
  return (
    configCommands(uiCommand(auditCommands(cli)))
      .middleware((argv) => {
        // Not `daemon`: hooks start it from the agent's environment when it is down.
        const command = String(argv._[0] ?? '');
        if (SETUP_COMMANDS.has(command)) refuseInAgentShell(command);
        if (command === 'doctor' && argv.fix === true) refuseInAgentShell('doctor --fix');
        if (JOBLESS_COMMANDS.has(command) && argv.job !== undefined) throw new UsageError(`recap ${command} is not about a job: leave out --job`);
      })
      .command(
        'completion <shell>',
        'shell completion script (bash, zsh, fish)',
        (y) => y.hide('job').positional('shell', { choices: ['bash', 'zsh', 'fish'] as const, demandOption: true }),
        (argv) => completionScript(argv.shell),
      )
      .demandCommand(1, 'name a command')
      .recommendCommands()
      .strict()
      .help()
      .version('version', "recap's version", recapVersion())
      // At most 100 columns, so --help fits one screen (one line a command) and stays readable.
      .wrap(Math.min(100, process.stdout.columns || 80))
      .fail((message, error) => {
        throw error ?? new UsageError(`${message}; see recap --help`);
      })
  );
}

/**
 * Prints yargs's completion script for `shell`. yargs picks the script by $SHELL when an
 * instance is made, so one is made with the shell asked for; the script asks `recap
 * --get-yargs-completions` for the words, which every build of the CLI answers.
 */
function completionScript(shell: 'bash' | 'zsh' | 'fish'): void {
  const saved = process.env.SHELL;
  process.env.SHELL = `/bin/${shell}`;
  try {
    // Its typings leave out the second argument (the command named in the script's comment).
    (yargs([]).scriptName('recap').showCompletionScript as (name: string, command: string) => void)('recap', `completion ${shell}`);
  } finally {
    if (saved === undefined) delete process.env.SHELL;
    else process.env.SHELL = saved;
  }
}

/** Parses `args` and runs the command they name (main.ts reports a failure). */
export async function runCli(args: string[]): Promise<void> {
  await buildCli(args).parseAsync();
}
