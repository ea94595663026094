// The transcript cannot switch the gate off: whatever the agent writes into (or puts in
// place of) its transcript, the tripped gate denies exactly as it does without one, the
// daemon keeps answering, and the way out stays open.
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECAP, trackedSandboxes } from '../helpers/daemon.js';
import { expectAllowed, expectDenied, expectWayOutOpen, proveWayOut, runHook, toolCall, trippedGate, type Attack } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterAll);

/** The UsageRecorded events of the log, as `recap log` prints them. */
function loggedUsage(attack: Attack): string {
  return execFileSync(process.execPath, [RECAP, 'log', '--json', '--type', 'UsageRecorded'], { env: attack.box.env, cwd: attack.box.project, encoding: 'utf8' });
}

/** A transcript as Claude Code writes it: a user turn and an assistant turn with usage. */
function realLines(id: string): string {
  const user = { type: 'user', message: { role: 'user', content: 'Fix the parser.' }, uuid: `u-${id}` };
  const assistant = {
    type: 'assistant',
    requestId: `req-${id}`,
    message: { id: `msg-${id}`, model: 'claude-opus-5-5', usage: { input_tokens: 12, output_tokens: 40, cache_creation_input_tokens: 300, cache_read_input_tokens: 9000 } },
  };
  return `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n`;
}

/** Lines an agent can append that are not a usable transcript entry. */
const POISON_LINES: [string, string | Buffer][] = [
  ['null', 'null\n'],
  ['an empty array', '[]\n'],
  ['a number', '42\n'],
  ['a string', '"assistant"\n'],
  ['true', 'true\n'],
  ['a truncated object', '{"type":"assistant","message":{"id":"msg-cut","usage":{"input_tok\n'],
  ['binary bytes with NULs and invalid UTF-8', Buffer.concat([Buffer.from([0, 0xff, 0xfe, 0xc3, 0x28, 0x0a, 0x80, 0x00, 0x7b]), Buffer.from('\n')])],
  ['an assistant line whose message is null', '{"type":"assistant","message":null}\n'],
  ['an assistant line whose usage is null', '{"type":"assistant","message":{"id":"msg-n","usage":null}}\n'],
  ['an assistant line whose usage is a string', '{"type":"assistant","message":{"id":"msg-s","usage":"lots"}}\n'],
  ['an assistant line whose message id is a number', '{"type":"assistant","message":{"id":5,"usage":{"input_tokens":1}}}\n'],
  [
    'usage counts that are negative, huge or not numbers',
    '{"type":"assistant","message":{"id":"msg-x","usage":{"input_tokens":-5,"output_tokens":1e308,"cache_read_input_tokens":"NaN"}}}\n',
  ],
  ['a __proto__ key', '{"__proto__":{"type":"assistant"},"constructor":{"prototype":{"allow":true}}}\n'],
  ['a lone surrogate escape', '{"type":"assistant","message":{"id":"\\ud800","usage":{}}}\n'],
  ['a half-written last line without a newline', '{"type":"assistant","message":{"id":"msg-half"'],
];

describe('a poisoned transcript on a tripped gate', () => {
  let attack: Attack;
  let dir: string;
  /** The deny reason of the same call without any transcript: the verdict to match. */
  let baseline: string;
  let nth = 0;

  const readCall = (transcript_path: unknown) => toolCall(attack, 'Read', { file_path: join(attack.box.project, 'src', 'main.ts') }, { transcript_path });
  const denyWith = async (transcript_path: unknown) => expectDenied(await runHook(attack.box.env, readCall(transcript_path)));
  /** A fresh transcript file: real lines, then `poison`. */
  const poisoned = (poison: string | Buffer, name = `t${(nth += 1)}.jsonl`): string => {
    const path = join(dir, name);
    writeFileSync(path, realLines(name));
    appendFileSync(path, poison);
    return path;
  };

  beforeAll(async () => {
    attack = await trippedGate(newBox(), start);
    dir = join(attack.box.dir, 'transcripts');
    mkdirSync(dir);
    baseline = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Read', { file_path: join(attack.box.project, 'src', 'main.ts') })));
  });

  it.each(POISON_LINES)('%s appended to the transcript: denied as without it, and the way out is open', async (_what, poison) => {
    const path = poisoned(poison);
    expect(await denyWith(path)).toBe(baseline);
    // Read twice: the second read starts where the first stopped.
    appendFileSync(path, poison);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a 50 MB line, then a real line: every call denied as without it, and the reader gets past the line in bounded reads', async () => {
    const path = poisoned('');
    expect(await denyWith(path)).toBe(baseline);
    appendFileSync(path, `{"type":"assistant","pad":"${'x'.repeat(50 * 1024 * 1024)}"}\n`);
    appendFileSync(path, realLines('after-the-long-line'));
    // Each call reads at most 8 MB: seven calls to get past the line, the eighth finds the real one.
    for (let call = 0; call < 8; call += 1) expect(await denyWith(path)).toBe(baseline);
    expect(loggedUsage(attack)).toContain('msg-after-the-long-line');
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
    rmSync(path);
  });

  it('a FIFO with no writer: denied at once, never a read that waits for a writer', async () => {
    const path = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [path]);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it("more FIFOs at once than Node's thread pool has threads: every call is answered, and so is the next", async () => {
    const paths = Array.from({ length: 8 }, (_, i) => join(dir, `fifo-${i}.jsonl`));
    for (const path of paths) execFileSync('mkfifo', [path]);
    const runs = await Promise.all(paths.map((path) => runHook(attack.box.env, readCall(path))));
    for (const run of runs) expect(expectDenied(run)).toBe(baseline);
    expect(await denyWith(undefined)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: paths[0] } });
  });

  it.each([
    ['/dev/zero', '/dev/zero'],
    ['/dev/urandom', '/dev/urandom'],
    ['/dev/null', '/dev/null'],
  ])('a symlink to %s: denied as without it, and the way out is open', async (_what, device) => {
    const path = join(dir, `device-${(nth += 1)}.jsonl`);
    symlinkSync(device, path);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a symlink to a real transcript is not followed: denied as without it', async () => {
    const path = join(dir, 'link.jsonl');
    symlinkSync(poisoned('null\n'), path);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a directory named like a transcript: denied as without it', async () => {
    const path = join(dir, 'folder.jsonl');
    mkdirSync(path);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a missing transcript: denied as without it', async () => {
    const path = join(dir, 'never-written.jsonl');
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('an unreadable transcript (mode 0000): denied as without it', async () => {
    const path = poisoned('null\n');
    chmodSync(path, 0o000);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('an empty transcript: denied as without it', async () => {
    const path = join(dir, 'empty.jsonl');
    writeFileSync(path, '');
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it.each([
    ['/dev/zero itself', '/dev/zero'],
    ['/dev/urandom itself', '/dev/urandom'],
    ['a path that does not end in .jsonl', '/etc/passwd'],
    ['a relative path', 'transcript.jsonl'],
    ['the root folder', '/'],
  ])('a transcript_path that is %s: denied as without it', async (_what, path) => {
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a transcript replaced by a FIFO between two calls: both denied as without it', async () => {
    const path = poisoned('');
    expect(await denyWith(path)).toBe(baseline);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('a transcript replaced by a shorter file, then by a symlink to /dev/zero: denied as without it', async () => {
    const path = poisoned('null\n'.repeat(100));
    expect(await denyWith(path)).toBe(baseline);
    writeFileSync(path, 'null\n');
    expect(await denyWith(path)).toBe(baseline);
    rmSync(path);
    symlinkSync('/dev/zero', path);
    expect(await denyWith(path)).toBe(baseline);
    await expectWayOutOpen(attack, { fields: { transcript_path: path } });
  });

  it('the way out, taken with `echo null >>` the transcript in every call', async () => {
    const path = poisoned('null\n');
    await proveWayOut(attack, { fields: { transcript_path: path } });
  });
});

describe('a poisoned transcript on an open gate', () => {
  it('changes nothing either: the call is allowed and the usage of the real lines is still recorded', async () => {
    const box = newBox();
    const daemon = await start(box);
    const path = join(box.dir, 'open.jsonl');
    writeFileSync(path, `null\n[]\n${realLines('open')}\u0000\xff\n`);
    const attack = { box, daemon, session: 'open-session', job: '', shellEnv: box.env } as Attack;
    expectAllowed(await runHook(box.env, toolCall(attack, 'Read', { file_path: join(box.project, 'a.ts') }, { transcript_path: path })));
    expect(loggedUsage(attack)).toContain('msg-open');
  });
});

describe('a poisoned transcript with ON_DAEMON_DOWN=closed', () => {
  it('denies as without it and never locks the user out: the way out, taken with the poison in every call, opens the gate', async () => {
    const attack = await trippedGate(newBox(), async (box) => {
      appendFileSync(box.config, 'ON_DAEMON_DOWN=closed\n');
      return start(box);
    });
    const path = join(attack.box.dir, 'closed.jsonl');
    writeFileSync(path, `${realLines('closed')}null\n[]\n\u0000\n`);
    const reason = expectDenied(await runHook(attack.box.env, toolCall(attack, 'Bash', { command: 'ls' }, { transcript_path: path })));
    expect(reason).toContain(`job ${attack.job} `);
    expect(reason).not.toContain('not reachable');
    await proveWayOut(attack, { fields: { transcript_path: path } });
  });
});
