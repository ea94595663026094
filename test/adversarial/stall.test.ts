// A slow, stopped or flooded daemon does not open the gate: with thousands of idle
// connections, a flood of requests, the daemon stopped with SIGSTOP or its thread pool
// blocked, recap-hook still answers, and a job the daemon last knew as tripped is denied,
// its way out still let through. Pathological and invalid Glob patterns get a verdict too.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RawClient, type Sandbox } from '../helpers/daemon.js';
import { expectAllowed, expectDenied, expectWayOutOpen, proveWayOut, runHook, toolCall, trippedSandbox, endAttack, type Attack } from '../helpers/gateAttack.js';

/** A gate tripped in its own sandbox, for one describe block. */
function gateFor(env: NodeJS.ProcessEnv = {}) {
  const ctx = {} as { box: Sandbox; attack: Attack };
  beforeAll(async () => {
    ctx.attack = await trippedSandbox({ env });
    ctx.box = ctx.attack.box;
  });
  afterAll(() => endAttack(ctx.attack));
  return ctx;
}

/** The deny came from the daemon itself: the gate's own message, not the fallback's. */
const fromDaemon = (reason: string) => expect(reason).not.toContain('not answering');
/** The deny came from the verdict file: the daemon did not answer. */
const fromVerdictFile = (reason: string) => expect(reason).toContain('the daemon is not answering');

describe('the verdict file', () => {
  const g = gateFor();

  it('lists the tripped job with its way out, 0600 in the 0700 socket folder, and drops it once the gate opens', async () => {
    const path = join(dirname(g.box.socket), 'verdicts.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    const verdicts = JSON.parse(readFileSync(path, 'utf8')) as { tripped: Record<string, { submit: string }>; sessions: object };
    expect(verdicts.tripped[g.attack.job]?.submit).toContain("submit <<'EOF'");
    // The session is bound to the tripped job: a hook in a folder of another project still finds it.
    expect(verdicts.sessions).toEqual({ [g.attack.session]: g.attack.job });
    await proveWayOut(g.attack);
    const after = JSON.parse(readFileSync(path, 'utf8')) as { tripped: object; sessions: object };
    expect(after.tripped).toEqual({});
    expect(after.sessions).toEqual({});
  });
});

describe('a daemon stopped with SIGSTOP', () => {
  const g = gateFor();
  /** The hook's env with a short deadline: it gives up on the stopped daemon in 0.5 s, not 8. */
  const env = () => ({ ...g.box.env, RECAP_HOOK_DEADLINE_MS: '500' });

  // Letting the way out through continues the daemon: each case stops it again.
  beforeEach(() => {
    g.attack.daemon.child.kill('SIGSTOP');
  });

  const tools: [string, (a: Attack) => Record<string, unknown>][] = [
    ['Read', (a) => toolCall(a, 'Read', { file_path: join(a.box.project, 'README.md') })],
    ['Write', (a) => toolCall(a, 'Write', { file_path: join(a.box.project, 'x.ts'), content: 'export {}' })],
    ['Edit', (a) => toolCall(a, 'Edit', { file_path: join(a.box.project, 'x.ts'), old_string: 'a', new_string: 'b' })],
    ['Bash ls', (a) => toolCall(a, 'Bash', { command: 'ls -la', description: 'list' })],
    ['Bash recap status chained with rm', (a) => toolCall(a, 'Bash', { command: 'recap status; rm -rf ~/.local/share/recap', description: 'x' })],
    ['Glob', (a) => toolCall(a, 'Glob', { pattern: '**/*.ts' })],
    ['an MCP tool', (a) => toolCall(a, 'mcp__github__create_issue', { title: 'x' })],
    ['Read from a subfolder of the project', (a) => toolCall(a, 'Read', { file_path: '/etc/hosts' }, { cwd: join(a.box.project, 'src', 'deep') })],
  ];
  for (const [name, make] of tools) {
    it(`denies ${name} from the verdict file, and the way out stays open`, async () => {
      const reason = expectDenied(await runHook(env(), make(g.attack)));
      fromVerdictFile(reason);
      expect(reason).toContain(g.attack.job);
      expect(reason).toContain('ask the user to restart it');
      const command = await expectWayOutOpenWith(g.attack, env());
      expect(command).toContain('## Current State');
    });
  }

  it('lets the way out through even with ON_DAEMON_DOWN=closed', async () => {
    writeFileSync(g.box.config, 'TOKEN_THRESHOLD=300\nON_DAEMON_DOWN=closed\n');
    await expectWayOutOpenWith(g.attack, env());
    writeFileSync(g.box.config, 'TOKEN_THRESHOLD=300\n');
  });

  it('once continued, the daemon answers again and the way out opens the gate', async () => {
    g.attack.daemon.child.kill('SIGCONT');
    fromDaemon(expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }))));
    await proveWayOut(g.attack);
  });
});

/** expectWayOutOpen with the hook run in another env (a short deadline). */
async function expectWayOutOpenWith(attack: Attack, env: NodeJS.ProcessEnv): Promise<string> {
  const saved = attack.box.env;
  attack.box.env = env;
  try {
    return await expectWayOutOpen(attack);
  } finally {
    attack.box.env = saved;
  }
}

describe('a daemon whose thread pool is blocked', () => {
  const g = gateFor();
  const fifos: string[] = [];

  it('cannot be blocked by transcripts that are FIFOs: the daemon itself still denies, and the way out stays open', async () => {
    const env = { ...g.box.env, RECAP_HOOK_DEADLINE_MS: '800' };
    // A transcript that is a FIFO nobody writes: an open of it would hold one of the four
    // threads. The daemon never opens one (transcript.ts), so its threads stay free.
    for (let i = 0; i < 4; i += 1) {
      const fifo = join(g.box.dir, `transcript-${i}.jsonl`);
      execFileSync('mkfifo', [fifo]);
      fifos.push(fifo);
      const call = toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }, { transcript_path: fifo });
      expectDenied(await runHook(env, call));
    }
    fromDaemon(expectDenied(await runHook(env, toolCall(g.attack, 'Write', { file_path: join(g.box.project, 'a.ts'), content: 'x' }))));
    await expectWayOutOpenWith(g.attack, env);
  });

  it('once the reads end, the way out opens the gate', async () => {
    // A writer that opens and closes at once ends each blocked open with an empty read.
    for (const fifo of fifos) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader on it (the daemon never opened it): nothing blocked there.
      }
    }
    await proveWayOut(g.attack);
  });
});

describe('thousands of idle connections and floods of requests', () => {
  const g = gateFor();

  it('2000 idle connections: the daemon still answers the hook', async () => {
    const idle = await Promise.all(Array.from({ length: 2000 }, () => RawClient.connect(g.box.socket)));
    try {
      fromDaemon(expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }))));
      await expectWayOutOpen(g.attack);
    } finally {
      for (const client of idle) client.socket.destroy();
    }
  });

  it('a flood of 20,000 pipelined requests: the hook still gets a deny', async () => {
    const flood = await RawClient.connect(g.box.socket);
    for (let i = 0; i < 20_000; i += 1) flood.send({ id: i, op: i % 2 ? 'ping' : 'status', job: g.attack.job });
    expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Bash', { command: 'make', description: 'build' })));
    await expectWayOutOpen(g.attack);
    await flood.received(20_000);
    flood.close();
  });

  it('a flood of checks from 20 connections: the hook still gets a deny', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => RawClient.connect(g.box.socket)));
    for (const client of clients) for (let i = 0; i < 500; i += 1) client.send({ id: i, op: 'check', job: g.attack.job, tool: 'Read', input: { file_path: '/etc/hosts' } });
    expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Write', { file_path: join(g.box.project, 'a.ts'), content: 'x' })));
    await expectWayOutOpen(g.attack);
    await Promise.all(clients.map((c) => c.received(500)));
    for (const client of clients) client.close();
  });

  it('a burst of audit ops (verify, replay, events): checks do not wait behind them', async () => {
    const audit = await RawClient.connect(g.box.socket);
    for (let i = 0; i < 60; i += 1) {
      const op = ['verify', 'replay', 'events'][i % 3]!;
      audit.send({ id: i, op, ...(op === 'replay' ? { atSeq: 1 } : {}) });
    }
    fromDaemon(expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }))));
    await expectWayOutOpen(g.attack);
    const answers = await audit.received(60);
    expect(answers.filter((a) => 'error' in a)).toEqual([]);
    audit.close();
    await proveWayOut(g.attack);
  });
});

describe('a daemon at its connection limit', () => {
  const g = gateFor({ RECAP_MAX_CONNECTIONS: '50' });

  it('closes the connection idle longest to let a hook in', async () => {
    const idle = await Promise.all(Array.from({ length: 120 }, () => RawClient.connect(g.box.socket)));
    try {
      fromDaemon(expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }))));
      await expectWayOutOpen(g.attack);
    } finally {
      for (const client of idle) client.socket.destroy();
    }
  });

  it('with every connection busy, the hook denies from the verdict file and lets the way out through', async () => {
    const busy = await Promise.all(Array.from({ length: 50 }, () => RawClient.connect(g.box.socket)));
    // Each holds a frame begun and not finished: not idle, so none is closed for a newcomer.
    for (const client of busy) client.sendBytes(Buffer.from([0, 0, 1, 0, 0x7b]));
    try {
      fromVerdictFile(expectDenied(await runHook(g.box.env, toolCall(g.attack, 'Read', { file_path: join(g.box.project, 'README.md') }))));
      await expectWayOutOpen(g.attack);
    } finally {
      for (const client of busy) client.socket.destroy();
    }
    await proveWayOut(g.attack);
  });
});

describe('Glob patterns that would make a regex backtrack for minutes', () => {
  const g = gateFor();
  const folder = 'a'.repeat(40);
  const patterns: [string, (a: Attack) => Record<string, unknown>][] = [
    ['40 stars and an x against a folder of 40 a', (a) => toolCall(a, 'Glob', { pattern: `${'*'.repeat(40)}x`, path: join(a.box.dir, folder) })],
    ['an absolute pattern of stars against recap folder names', (a) => toolCall(a, 'Glob', { pattern: `/${'*'.repeat(40)}x/${'*'.repeat(40)}x/data` })],
    ['alternating stars and letters', (a) => toolCall(a, 'Glob', { pattern: `/tmp/${'*a'.repeat(30)}b/**` })],
    ['nested-looking braces', (a) => toolCall(a, 'Glob', { pattern: `/tmp/${'{a,aa,aaa}'.repeat(20)}x/*` })],
    ['a 100,000-character segment', (a) => toolCall(a, 'Glob', { pattern: `/${'*?'.repeat(50_000)}/data` })],
    ['an unclosed [', (a) => toolCall(a, 'Glob', { pattern: '/tmp/[recap*/data' })],
    ['an unclosed [!', (a) => toolCall(a, 'Glob', { pattern: '[!' })],
    ['an unclosed {', (a) => toolCall(a, 'Glob', { pattern: '/tmp/{recap,*/data' })],
    ['a class of only ]', (a) => toolCall(a, 'Glob', { pattern: '[]]' })],
  ];
  for (const [name, make] of patterns) {
    it(`judges ${name} in time, denied on the tripped gate; the way out stays open`, async () => {
      fromDaemon(expectDenied(await runHook(g.box.env, make(g.attack))));
      await expectWayOutOpen(g.attack);
    });
  }

  it('on an open gate, a pathological pattern is answered (allowed) and the daemon goes on', async () => {
    const client = await RawClient.connect(g.box.socket);
    const answer = await client.request({
      id: 1,
      op: 'check',
      job: 'other-0000beef',
      tool: 'Glob',
      input: { pattern: `/${'*'.repeat(40)}x/${'*'.repeat(40)}x/data` },
      cwd: g.box.project,
    });
    expect(answer).toMatchObject({ id: 1, result: { allow: true } });
    client.close();
    await proveWayOut(g.attack);
    expectAllowed(await runHook(g.box.env, toolCall(g.attack, 'Glob', { pattern: '[' })));
  });
});
