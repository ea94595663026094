// The simple commands a Bash line runs, in order, read with the shell tokenizer
// (shellTokens.ts): its own, those inside command substitutions (`"$(...)"`, backticks),
// and those of literal code it hands on (`sh -c '...'`, `eval ...`, `find -exec`, a
// terminal multiplexer's command). Rules that look for one program wherever it sits (an
// agent started without recap's hooks, a signal sent to recap's daemon) read this list.
// Code the shell computes is not here: mightRunRecap refuses it (runsRecap.ts).
import { ASSIGNMENT, effectiveProgram, FIND_EXEC, programName, SHELL_CODE_OPTION, SHELLS } from './runsRecap.js';
import { simpleCommands, tokenize, type SimpleCommand, type WordToken } from './shellTokens.js';

/** What a line runs, and the pieces of it that could not be read as shell (judged as text). */
export type Within = { commands: SimpleCommand[]; unread: string[] };

const DEPTH_LIMIT = 8;

/**
 * Programs that run a command given as their arguments or as one word of shell text, beyond
 * the wrappers effectiveProgram knows: `screen -dm claude --bare`, `tmux new -d 'codex ...'`.
 */
const RUNNERS = new Set([
  'screen',
  'tmux',
  'systemd-run',
  'script',
  'watch',
  'parallel',
  'su',
  'runuser',
  'chroot',
  'unshare',
  'firejail',
  'bwrap',
  'nsenter',
  'dtach',
  'abduco',
  'tsp',
  'dbus-run-session',
  'flatpak-spawn',
]);

/** Package runners whose options take a command line as one word: `npx -c 'codex ...'`, `flock f -c '...'`. */
const CODE_OPTIONS = new Set(['npx', 'npm', 'pnpm', 'yarn', 'bunx', 'flock']);

export function commandsWithin(command: string, depth = 0): Within {
  const within: Within = { commands: [], unread: [] };
  const tokenized = depth > DEPTH_LIMIT ? undefined : tokenize(command);
  if (!tokenized?.ok) {
    within.unread.push(command);
    return within;
  }
  const add = (code: string) => {
    const inner = commandsWithin(code, depth + 1);
    within.commands.push(...inner.commands);
    within.unread.push(...inner.unread);
  };
  for (const simple of simpleCommands(tokenized.tokens)) {
    // A substitution runs before the command whose word holds it.
    for (const word of simple.words) if (!word.literal) substitutions(word.value).forEach(add);
    for (const heredoc of simple.heredocs) if (!heredoc.quoted) substitutions(heredoc.body).forEach(add);
    within.commands.push(simple);
    const { program, args } = effectiveProgram(simple.words);
    const name = program === undefined ? '' : programName(program.value);
    if (SHELLS.has(name)) {
      const at = args.findIndex((a) => SHELL_CODE_OPTION.test(a.value));
      const code = at >= 0 ? args[at + 1] : undefined;
      if (code?.literal) add(code.value);
    } else if (name === 'eval' && args.every((a) => a.literal)) add(args.map((a) => a.value).join(' '));
    else if (name === 'find') {
      const at = args.findIndex((a) => FIND_EXEC.test(a.value));
      if (at >= 0) within.commands.push({ words: untilEnd(args.slice(at + 1)), redirects: [], heredocs: [] });
    } else if (RUNNERS.has(name) || CODE_OPTIONS.has(programName(simple.words.find((w) => !ASSIGNMENT.test(w.value))?.value ?? ''))) {
      // A word with spaces may be a command line (tmux, watch, su -c); the words themselves
      // may be one too (screen, systemd-run): both are read, which is stricter than either.
      for (const arg of args) if (arg.literal && /\s/.test(arg.value)) add(arg.value);
      // Which word starts the command depends on the runner's options: each of the first few
      // that is no option is tried (`watch -n 5 claude ...` starts at 5, then at claude).
      const starts = args.flatMap((a, i) => (a.value.startsWith('-') ? [] : [i])).slice(0, 8);
      for (const at of starts) within.commands.push({ words: args.slice(at), redirects: [], heredocs: [] });
    }
  }
  return within;
}

/** find -exec's command ends at `;` or `+`. */
function untilEnd(words: WordToken[]): WordToken[] {
  const end = words.findIndex((w) => w.value === ';' || w.value === '+');
  return end < 0 ? words : words.slice(0, end);
}

/** The code of each `$(...)` and backtick pair in a word's text, outermost first. */
export function substitutions(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text.startsWith('$(', i) && !text.startsWith('$((', i)) {
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j += 1) {
        if (text[j] === '(') depth += 1;
        else if (text[j] === ')' && --depth === 0) break;
      }
      found.push(text.slice(i + 2, j));
      i = j;
    } else if (text[i] === '`') {
      const end = text.indexOf('`', i + 1);
      if (end < 0) break;
      found.push(text.slice(i + 1, end));
      i = end;
    }
  }
  return found;
}
