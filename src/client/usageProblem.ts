// yargs' complaints about a command line in recap's words: the option as the user typed it
// (`--limit`, not `limit`), the command it was given to, and where to read more.

/** Options a time or a span follows: a minus there is a span counted forward by mistake. */
const TIME_OPTIONS = new Set(['--since', '--until', '--at']);
const SPAN_COMMANDS = new Set(['pause']);

/** yargs' message for `args`, said as recap says it. */
export function usageProblem(message: string, args: readonly string[]): string {
  const command = args.find((a) => !a.startsWith('-'));
  const help = `see recap ${command ?? ''}${command ? ' ' : ''}--help`;
  const negative = args.findIndex((a) => /^-\d/.test(a));
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    // yargs reads `-1h` as the options 1 and h: those are the minus's, said below.
    const spelledByMinus = new Set(negative >= 0 ? [...args[negative]!.slice(1)] : []);
    const names = unknown[1]!.split(', ').filter((name) => !spelledByMinus.has(name));
    if (names.length > 0)
      return `${names.map((name) => asTyped(name, args)).join(', ')}: ${command ? `recap ${command} has` : 'there is'} no such ${names.some((n) => asTyped(n, args).startsWith('-')) ? 'option' : 'argument'}; ${help}`;
  }
  if (negative >= 0) {
    const value = args[negative]!;
    const time = TIME_OPTIONS.has(args[negative - 1] ?? '') || SPAN_COMMANDS.has(command ?? '');
    if (time) return `${value} reads as an option: give a span or a time without a minus (5m, 2h, 1d), which counts back from now where a time is asked for`;
    return `${value} reads as an option: give the number without a minus; ${help}`;
  }
  const guess = /^Did you mean (\S+)\?$/.exec(message);
  if (guess) return `there is no command ${command ?? ''}: did you mean ${guess[1]}? see recap --help`;
  if (/^Not enough non-option arguments/.test(message) && command !== undefined) return `${command} needs an argument it was not given; ${help}`;
  const missing = /^Missing required arguments?: (.+)$/.exec(message);
  if (missing)
    return `recap ${command ?? ''} needs ${missing[1]!
      .split(', ')
      .map((name) => `--${name}`)
      .join(' and ')}; ${help}`;
  const invalid = /^Invalid values:\s+Argument: (\S+), Given: (.+?), Choices: (.+)$/s.exec(message);
  if (invalid) {
    const [, name, given, choices] = invalid;
    return `${asTyped(name!, args)} cannot be ${given}: give one of ${choices!.replace(/"/g, '')}; ${help}`;
  }
  const exclusive = /^Arguments (\S+) and (\S+) are mutually exclusive$/.exec(message);
  if (exclusive) return `${asTyped(exclusive[1]!, args)} and ${asTyped(exclusive[2]!, args)} cannot be given together; ${help}`;
  return `${message}; ${help}`;
}

/** An option's name as it was typed (`--limit`, `-l`), or a positional argument's name as it is. */
function asTyped(name: string, args: readonly string[]): string {
  const long = `--${name}`;
  if (args.some((a) => a === long || a.startsWith(`${long}=`))) return long;
  if (name.length === 1 && args.some((a) => /^-[^-]/.test(a) && a.includes(name))) return `-${name}`;
  return name;
}
