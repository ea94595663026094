// The daemon run in the foreground at a terminal (`npm start`) logs lines a person reads, not
// JSON; in the background its log file keeps JSON lines, one record each. Through the real
// daemon, its stderr a terminal made by script(1).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECAP, removeSandbox, runCli, sandbox } from '../helpers/daemon.js';

describe('the daemon in the foreground at a terminal', () => {
  const box = sandbox();
  afterAll(() => removeSandbox(box));

  it('logs readable lines (time, level, message, key=value), and its background log stays JSON', async () => {
    const child = spawn('script', ['-qec', `${process.execPath} ${RECAP} daemon`, '/dev/null'], { env: box.env, cwd: box.project, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/recap daemon ready[^\n]*\n/.test(out)) resolve();
      }),
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await ready;
    expect(out).toMatch(/^\d\d:\d\d:\d\d info recap daemon ready socket=\S+recapd\.sock log=\S+ events=\d+ platform=[\w-]+\r?$/m);
    expect(out).not.toContain('{"level"');
    expect((await runCli(box, ['stop'])).code).toBe(0);
    await exited;

    // Started in the background by a command, it writes JSON to its log file.
    expect((await runCli(box, ['status'])).code).toBe(0);
    const log = readFileSync(join(box.data, 'recapd.log'), 'utf8').trim().split('\n');
    expect(JSON.parse(log.find((line) => line.includes('recap daemon ready'))!)).toMatchObject({ level: 30, msg: 'recap daemon ready' });
    expect((await runCli(box, ['stop'])).code).toBe(0);
  });
});
