// Starts the real daemon as a child process on a temporary socket, data folder and config,
// and drives it through the real CLI and the raw socket.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import { daemonCommand, daemonEnvironment } from '../../src/common/daemonStart.js';
import { encodeFrame, FrameReader } from '../../src/common/frames.js';
import { noticedWord, runAtTerminal } from './fakeTerminal.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RECAP = join(ROOT, 'bin', 'recap.js');

/**
 * The suite's second run (`npm run test:fake-macos`): every Node process a sandbox starts
 * loads the fake macOS platform first (test/helpers/fakeMacosPreload.mjs).
 */
export const ON_FAKE_MACOS = process.env.RECAP_TEST_PLATFORM === 'fake-macos';
const FAKE_MACOS_PRELOAD = join(ROOT, 'test', 'helpers', 'fakeMacosPreload.mjs');

export type Sandbox = { dir: string; env: NodeJS.ProcessEnv; socket: string; data: string; config: string; project: string };

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'recap-test-'));
  const socket = join(dir, 'run', 'recap', 'recapd.sock');
  const data = join(dir, 'data');
  const config = join(dir, 'config.conf');
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_DATA_HOME: join(dir, 'xdg-data'),
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    RECAP_SOCKET: socket,
    RECAP_DATA_DIR: data,
    RECAP_CONFIG: config,
    RECAP_LOG_LEVEL: 'info',
    ...(ON_FAKE_MACOS ? { NODE_OPTIONS: `--import=${pathToFileURL(FAKE_MACOS_PRELOAD).href}`, FAKE_MACOS_NOTICES: join(dir, 'notices.txt') } : {}),
  };
  return { dir, env, socket, data, config, project };
}

export function removeSandbox(box: Sandbox): void {
  rmSync(box.dir, { recursive: true, force: true });
}

export type LogLine = { level: number; msg: string; [key: string]: unknown };

export class DaemonProcess {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  private waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(
    readonly box: Sandbox,
    readonly child: ChildProcess,
  ) {
    let partial = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const text of lines) this.take(text);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  private take(text: string): void {
    this.stderr.push(text);
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return;
    }
    this.lines.push(line);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(line)) return true;
      w.resolve(line);
      return false;
    });
  }

  /** Resolves with the first log line (past or future) that matches. */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  linesAfter(count: number): LogLine[] {
    return this.lines.slice(count);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/** Starts `recap daemon` and resolves once it logs that it is ready (or rejects if it exits). */
export async function startDaemon(box: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const daemon = launchDaemon(box, env);
  const ready = daemon.waitForLog((l) => l.msg === 'recap daemon ready');
  const outcome = await Promise.race([ready, daemon.exited.then(() => 'exited' as const)]);
  if (outcome === 'exited') throw new Error(`the daemon exited at start:\n${daemon.stderr.join('\n')}`);
  // The fake platform's run must not quietly run on Linux's: a daemon that did not load it fails the test.
  if (ON_FAKE_MACOS && outcome.platform !== 'fake-macos') throw new Error(`the daemon runs on ${String(outcome.platform)}, not the fake macOS platform`);
  return daemon;
}

export function launchDaemon(box: Sandbox, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  // As recap starts it (daemonStart.ts): Node's flags and the environment recap gives the daemon.
  const [node, ...args] = daemonCommand(process.execPath, RECAP);
  const child = spawn(node!, args, { env: daemonEnvironment({ ...box.env, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  return new DaemonProcess(box, child);
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

export function runCli(box: Sandbox, args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return runAsUser(box, [process.execPath, RECAP, ...args], options);
}

/**
 * A program run as the user runs it, in the box's project folder by default. On the fake macOS
 * platform, at a terminal where the user types the word a command asks for (fakeTerminal.ts).
 */
export function runAsUser(box: Sandbox, argv: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const cwd = options.cwd ?? box.project;
  const env = { ...box.env, ...options.env };
  if (ON_FAKE_MACOS) {
    return runAtTerminal(argv, { cwd, env, ...(options.input !== undefined ? { input: options.input } : {}) }).then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A raw protocol client: write any bytes, read every frame that comes back. */
export class RawClient {
  readonly frames: Record<string, unknown>[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    const reader = new FrameReader(64 * 1024 * 1024);
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) if (frame.kind === 'message') this.frames.push(frame.value as Record<string, unknown>);
      this.waiters = this.waiters.filter((w) => {
        if (this.frames.length < w.count) return true;
        w.resolve();
        return false;
      });
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** Connects, trying again while the daemon's accept queue is full (EAGAIN), as recap's clients do. */
  static async connect(path: string): Promise<RawClient> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await new Promise<RawClient>((resolve, reject) => {
          const socket = connect(path);
          socket.once('connect', () => resolve(new RawClient(socket)));
          socket.once('error', reject);
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || attempt >= 50) throw error;
        await new Promise((resume) => setTimeout(resume, 20));
      }
    }
  }

  send(message: unknown): void {
    this.socket.write(encodeFrame(message));
  }

  sendBytes(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves once `count` frames in all have arrived. */
  received(count: number): Promise<Record<string, unknown>[]> {
    if (this.frames.length >= count) return Promise.resolve(this.frames.slice(0, count));
    return new Promise((resolve) => this.waiters.push({ count, resolve: () => resolve(this.frames.slice(0, count)) }));
  }

  async request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const before = this.frames.length;
    this.send(message);
    await this.received(before + 1);
    return this.frames[before]!;
  }

  /**
   * A user's command sent over the socket. On the fake macOS platform, where the daemon cannot
   * learn who sent it and asks for the word it showed the user, sent again with that word.
   */
  async requestAsUser(box: Sandbox, message: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.request(message);
    if (!ON_FAKE_MACOS || (answer.error as { code?: string } | undefined)?.code !== 'unconfirmed') return answer;
    return this.request({ ...message, confirm: noticedWord(box.env) });
  }

  close(): void {
    this.socket.end();
  }
}

export const lengthPrefixed = (body: Buffer): Buffer => {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
};

/** A sandbox with a daemon running in it, for a describe block's beforeAll. */
export async function sandboxWithDaemon(env: NodeJS.ProcessEnv = {}): Promise<{ box: Sandbox; daemon: DaemonProcess }> {
  const box = sandbox();
  return { box, daemon: await startDaemon(box, env) };
}

/** Its afterAll: stop the daemon, remove the sandbox. */
export async function closeSandbox(box: Sandbox, daemon: DaemonProcess): Promise<void> {
  await daemon.stop();
  removeSandbox(box);
}

/**
 * Sandboxes and daemons made in a test, all killed and removed after it: call at the top of
 * a test file (it registers the afterEach).
 */
export function trackedSandboxes(afterEach: (fn: () => Promise<void>) => void): {
  newBox: () => Sandbox;
  start: (box: Sandbox, env?: NodeJS.ProcessEnv) => Promise<DaemonProcess>;
} {
  const boxes: Sandbox[] = [];
  const daemons: DaemonProcess[] = [];
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.stop('SIGKILL')));
    for (const box of boxes.splice(0)) removeSandbox(box);
  });
  return {
    newBox() {
      const box = sandbox();
      boxes.push(box);
      return box;
    },
    async start(box, env = {}) {
      const daemon = await startDaemon(box, env);
      daemons.push(daemon);
      return daemon;
    },
  };
}

/** A port nobody listens on right now: listen on port 0, note the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * One line of Node code that sends `request` to recap's socket ($RECAP_SOCKET) as any
 * program could (a 4-byte length, then the JSON) and prints the answer: what an agent writes
 * instead of a command line that names recap.
 */
export function socketRequestCode(request: Record<string, unknown>): string {
  return (
    `const s=require('net').connect(process.env.RECAP_SOCKET);const b=Buffer.from(${JSON.stringify(JSON.stringify(request))});` +
    `const h=Buffer.alloc(4);h.writeUInt32BE(b.length);s.write(Buffer.concat([h,b]));let r=Buffer.alloc(0);` +
    `s.on('data',d=>{r=Buffer.concat([r,d]);if(r.length>=4&&r.length>=4+r.readUInt32BE(0)){process.stdout.write(r.subarray(4,4+r.readUInt32BE(0)).toString());s.destroy();}});`
  );
}

/**
 * Puts a folder where a socket of the running daemon was, so that no socket can take the path:
 * the daemon's socket keeper puts a deleted socket back at once, so a socket it rebinds between
 * the removal and the folder is removed again.
 */
export function blockSocketPath(path: string): void {
  for (;;) {
    rmSync(path, { force: true });
    try {
      mkdirSync(path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** A test file's sandboxes, daemons and socket clients: closed, killed and removed after each test. */
export function removedAfterEach(): { boxes: Sandbox[]; daemons: DaemonProcess[]; clients: RawClient[] } {
  const kept = { boxes: [] as Sandbox[], daemons: [] as DaemonProcess[], clients: [] as RawClient[] };
  afterEach(async () => {
    for (const client of kept.clients.splice(0)) client.close();
    await Promise.all(kept.daemons.splice(0).map((d) => d.stop('SIGKILL')));
    for (const box of kept.boxes.splice(0)) removeSandbox(box);
  });
  return kept;
}

/** The data of every event of `type` in the log, oldest first, through the daemon's `events` op. */
export async function eventsOf(box: Sandbox, type: string): Promise<Record<string, unknown>[]> {
  const client = await RawClient.connect(box.socket);
  try {
    const response = await client.request({ id: 1, op: 'events', types: [type] });
    return ((response.result as { events: { data: Record<string, unknown> }[] }).events ?? []).map((e) => e.data);
  } finally {
    client.close();
  }
}
