// The `recap` command line: a thin client of the daemon's ops, plus `recap daemon`, each
// command in a file of src/client/commands/ by area. Exit codes: 0 success or allowed, 2
// denied or rejected, 1 anything else. quick.ts runs the plain forms of status, context and
// chain without it.
import { usageProblem } from './usageProblem.js';
import yargs, { type Argv } from 'yargs';
import { recapVersion } from '../common/version.js';
import { refuseInAgentShell } from './agentShell.js';
import { checkCommands, exportCommands, readCommands } from './commands/audit.js';
import { configCommands } from './commands/config.js';
import { daemonCommand, lifecycleCommands } from './commands/daemon.js';
import { moreLine } from './commands/docs.js';
import { mcpCommand } from './commands/mcp.js';
import { agentCommands, holdCommands, memoryCommands, reportCommand, statusCommand } from './commands/gate.js';
import { completionCommand, doctorCommand, initCommand, installCommands, statuslineCommand } from './commands/setup.js';
import { searchCommands } from './commands/search.js';
import { syncCommands } from './commands/sync.js';
import { uiCommand } from './commands/ui.js';
import { evalCommand } from './commands/eval.js';
import { memoryEditCommands } from './commands/memoryEdits.js';
import type { DaemonSide } from './daemonSide.js';
import { currentFolder, UsageError, type Builder, type Global } from './jobCommands.js';

export { UsageError };

/** Commands that change recap's setup or gate: the user's, never run from an agent's shell. */
const SETUP_COMMANDS = new Set(['install', 'uninstall', 'trip', 'import', 'stop', 'restart', 'reload', 'pause', 'resume', 'amend', 'redact']);

/** Commands that are about no one job: a --job given to them is refused, not silently ignored (and each hides it from its --help). */
const JOBLESS_COMMANDS = new Set(['install', 'uninstall', 'import', 'completion', 'init', 'eval']);

/** The commands in the order --help lists them; `side` runs what only the daemon's code can. */
const commands = (side: DaemonSide): Builder[] => [
  daemonCommand(side),
  statusCommand,
  lifecycleCommands,
  agentCommands,
  memoryCommands,
  memoryEditCommands,
  searchCommands,
  syncCommands,
  statuslineCommand,
  installCommands,
  holdCommands,
  reportCommand,
  doctorCommand,
  initCommand,
  readCommands,
  checkCommands,
  exportCommands(side),
  evalCommand,
  uiCommand,
  configCommands,
  mcpCommand,
];

/** The user's commands refused in an agent's shell, and --job where no job is meant. */
function refuseMisplaced(argv: { _: (string | number)[]; fix?: unknown; job?: unknown }): void {
  // Not `daemon`: hooks start it from the agent's environment when it is down.
  const command = String(argv._[0] ?? '');
  if (SETUP_COMMANDS.has(command)) refuseInAgentShell(command);
  if (command === 'doctor' && argv.fix === true) refuseInAgentShell('doctor --fix');
  if (JOBLESS_COMMANDS.has(command) && argv.job !== undefined) throw new UsageError(`recap ${command} is not about a job: leave out --job`);
}

/**
 * `--file -` and `-f -` as `--file=-`: yargs reads a lone `-` after an option as an empty
 * value and a word of its own, so the documented way to name stdin would not reach the command.
 */
export function stdinOptions(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    if ((args[i] === '--file' || args[i] === '-f') && args[i + 1] === '-') {
      out.push('--file=-');
      i += 1;
    } else out.push(args[i]!);
  }
  return out;
}

export function buildCli(args: string[], side: DaemonSide): Argv<Global> {
  // yargs reads the current folder itself, and throws when it is gone.
  const cli: Argv<Global> = yargs(stdinOptions(args), currentFolder() ?? '/')
    .scriptName('recap')
    // The page to read on its own line: at the foot, after the blank line yargs puts before an
    // epilogue, --help would no longer fit one screen.
    .usage(`$0 <command> [options]: holds an agent's tools until it writes a summary\n${moreLine('recap')}`)
    .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
    .option('job', { type: 'string', describe: "the job (default: RECAP_JOB, the session's, the folder's)" })
    .option('debug', { type: 'boolean', default: false, describe: 'show stack traces of unexpected errors' });
  return (
    completionCommand(
      commands(side)
        .reduce((y, add) => add(y), cli)
        .middleware(refuseMisplaced),
    )
      .demandCommand(1, 'name a command')
      .recommendCommands()
      .strict()
      .help()
      .version('version', "recap's version", recapVersion())
      // At most 100 columns, so --help fits one screen (one line a command) and stays readable.
      .wrap(Math.min(100, process.stdout.columns || 80))
      .fail((message, error) => {
        throw error ?? new UsageError(usageProblem(message, stdinOptions(args)));
      })
  );
}

/** Parses `args` and runs the command they name (main.ts reports a failure). */
export async function runCli(args: string[], side: DaemonSide): Promise<void> {
  await buildCli(args, side).parseAsync();
}
