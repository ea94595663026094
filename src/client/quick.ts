// The plain forms of the commands that only ask the daemon about a job (status, context,
// chain, replay --at, verify), run without yargs and the rest of the CLI: loading those costs more than Node's own
// start-up. scripts/bundle-quick.mjs makes this file one bundle, which bin/recap.js runs for
// these forms; main.ts runs it from dist/ (and every other form through cli.ts), whose parse
// of a plain form gives the same options. It loads nothing of the CLI's parser.
import { UserError } from '../common/errors.js';
import { chain, context, replay, status, UsageError, verify, type Global } from './jobCommands.js';
import { RemoteError } from './socketClient.js';
import { BadTime } from './time.js';

type Quick = Global & { daemon: boolean; at?: string };

const QUICK: Record<string, (argv: Quick) => Promise<void>> = {
  status,
  context,
  chain,
  replay: ({ at, ...argv }) => replay({ ...argv, at: at! }),
  verify,
};

/** Each option of a plain form that takes a value, and the commands it belongs to. */
const VALUED: Record<string, string[]> = { '--job': Object.keys(QUICK), '--at': ['replay'] };

/**
 * The options of a plain `recap status|context|chain|verify [--json] [--debug] [--job JOB]`
 * (`--daemon` for status) or `recap replay --at MOMENT` with those, each given once;
 * undefined for anything else, which yargs then parses (and refuses or explains as it does
 * today).
 */
export function quickForm(args: string[]): { run: (argv: Quick) => Promise<void>; argv: Quick } | undefined {
  const [command, ...rest] = args;
  // Own keys only: `recap constructor` names no command here.
  const run = command !== undefined && Object.hasOwn(QUICK, command) ? QUICK[command] : undefined;
  if (run === undefined) return undefined;
  const argv: Quick = { json: false, debug: false, daemon: false };
  const seen = new Set<string>();
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i]!;
    const equals = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
    if (seen.has(name)) return undefined;
    seen.add(name);
    if (Object.hasOwn(VALUED, name) && VALUED[name]!.includes(command!)) {
      const value = inline ?? rest[(i += 1)];
      // yargs reads an empty or dash-led value its own way: leave those to it.
      if (value === undefined || value === '' || value.startsWith('-')) return undefined;
      if (name === '--job') argv.job = value;
      else argv.at = value;
    } else if (inline !== undefined) return undefined;
    else if (name === '--json') argv.json = true;
    else if (name === '--debug') argv.debug = true;
    else if (name === '--daemon' && command === 'status') argv.daemon = true;
    else return undefined;
  }
  // replay's moment is required: without it, yargs says so.
  if (command === 'replay' && argv.at === undefined) return undefined;
  return { run, argv };
}

/** Runs the plain form `args` name, reported as every command is; undefined when they name none. */
export function runQuick(args = process.argv.slice(2)): Promise<void> | undefined {
  const quick = quickForm(args);
  return quick === undefined ? undefined : reported(args, () => quick.run(quick.argv));
}

/** The code a failure has in `--json`'s `{"error": {"code", "message"}}`. */
function errorCode(error: unknown): string {
  if (error instanceof RemoteError) return error.code;
  if (error instanceof UsageError || error instanceof BadTime) return 'usage';
  if (error instanceof UserError) return error.name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  return 'internal';
}

/** Runs a command of `args` and reports its failure: one line, `--json`'s error object, or the stack with --debug. */
export async function reported(args: string[], run: () => Promise<void>): Promise<void> {
  const debug = args.includes('--debug');
  // Decided before parsing: a failure to parse is reported as JSON too.
  const json = args.some((a) => a === '--json' || a === '--json=true');
  // A reader that stops early (recap log | head) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  try {
    await run();
  } catch (error) {
    process.exitCode = 1;
    if (json) {
      const message = error instanceof UserError ? error.message : ((error as Error).message ?? String(error));
      process.stdout.write(`${JSON.stringify({ error: { code: errorCode(error), message } })}\n`);
      if (debug && !(error instanceof UserError)) process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    } else if (error instanceof UserError) {
      process.stderr.write(`recap: ${error.message}\n`);
    } else if (debug) {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    } else {
      process.stderr.write(`recap: ${(error as Error).message ?? String(error)} (run with --debug for details)\n`);
    }
  }
}
