// The user at a terminal, for the suite's run on the fake macOS platform: there a user's
// command whose caller cannot be learned is confirmed at the controlling terminal with a word
// shown out of an agent's sight (src/client/terminalConfirm.ts). runAtTerminal runs recap
// under script(1), so it has a terminal, and types the word it was shown: in the daemon's
// notice (the fake platform appends those to FAKE_MACOS_NOTICES) or on the screen (a word
// the CLI makes itself). stdin, stdout and stderr stay files of their own, as runCli's are.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type TerminalRun = { code: number | null; stdout: string; stderr: string; screen: string };

const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
const PROMPT = /word: $/;
const WORD = /type ([a-z]{6})\b/g;

const lastWord = (text: string) => [...text.matchAll(WORD)].at(-1)?.[1];

function readOr(file: string | undefined, fallback: string): string {
  try {
    return file === undefined ? fallback : readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

/** The word in the newest notice recap showed the user. */
export const noticedWord = (env: NodeJS.ProcessEnv): string => lastWord(readOr(env.FAKE_MACOS_NOTICES, '')) ?? 'none';

/** `command` (a program and its arguments) at a terminal; every word it asks for typed. */
export function runAtTerminal(command: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<TerminalRun> {
  // Beside the sandbox, not in it: tests check what a command wrote there.
  const files = mkdtempSync(join(tmpdir(), 'recap-terminal-'));
  const [input, out, err] = ['stdin', 'stdout', 'stderr'].map((name) => join(files, name)) as [string, string, string];
  writeFileSync(input, options.input ?? '');
  const line = `${command.map(quoted).join(' ')} <${quoted(input)} >${quoted(out)} 2>${quoted(err)}`;
  const child = spawn('script', ['-qec', line, '/dev/null'], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'ignore'] });
  let screen = '';
  let answered = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
    if (!PROMPT.test(screen)) return;
    // The word of this prompt: on the screen since the last answer, or in the newest notice.
    const asked = screen.slice(answered);
    answered = screen.length;
    const word = lastWord(asked) ?? noticedWord(options.env);
    child.stdin.write(`${word}\n`);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      child.stdin.destroy();
      const run = { code, stdout: readOr(out, ''), stderr: readOr(err, ''), screen };
      rmSync(files, { recursive: true, force: true });
      resolve(run);
    });
  });
}
