// The daemon's life: take the log's lock, rebuild the projection, replace a stale socket, listen
// and say so in a pid file; on SIGHUP (`recap reload`) re-read the config; on SIGTERM (`recap stop`) finish what is in flight, close.
import { readdirSync, statSync } from 'node:fs';
import { platform } from '../platform/choose.js';
import { join } from 'node:path';
import { homedir } from 'node:os';
import type { Logger } from 'pino';
import { UserError } from '../common/errors.js';
import { unsupportedPlatform } from '../common/platform.js';
import { dataDir, eventLogDir, launcherSocketPath, socketPath, userConfigPath } from '../common/paths.js';
import { makeDataFolder } from '../common/dataFolder.js';
import { describeHolder, removePidFile, runningDaemon, writePidFile } from '../common/daemonRecord.js';
import { ConfigService } from './configService.js';
import { EventStore, LogLocked, LogUnreadable } from './eventStore.js';
import { Handler, VERSION, type Lifecycle } from './handler.js';
import { createLogger } from './logger.js';
import { UnknownEventVersion } from '../events/upcast.js';
import { UndecodableEvent } from './codec.js';
import { type Projection, USER_SCOPE } from './projection.js';
import { loadProjection } from './snapshot.js';
import { AuditChunkWriter } from './auditChunkWriter.js';
import { chunkEvents } from './auditChunks.js';
import { EventPacker, startPacker } from './eventPacker.js';
import { protectedPaths, readOnlyPaths, recapPaths, recapProcesses, shadowDirs, writeLauncher } from '../agents/recapPaths.js';
import { LauncherEndpoint } from './launcherEndpoint.js';
import { LoopbackServers } from './loopbackServers.js';
import { limitsFrom, SocketServer, type Listen } from './socketServer.js';
import { SocketPathTooLong } from './socketKeeper.js';
import { clearStaleSocket, SocketInUse } from '../common/staleSocket.js';
import { VerdictFile, verdictPath } from '../common/verdicts.js';
import { SpoolTaker } from './spoolTaker.js';
import { spoolDir } from '../common/promptSpool.js';
import { telemetryFrom, type Telemetry } from './telemetry/index.js';
import { checkInstalledCode } from '../common/codeManifest.js';

/** A start-up failure the user can fix; its message says how. */
export class DaemonStartError extends UserError {}

/** Runs the daemon until it is told to stop (SIGTERM, SIGINT, `recap stop`), and closes it. */
export async function runDaemon(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const unsupported = unsupportedPlatform(process.platform);
  if (unsupported) throw new UserError(`${unsupported.why}; ${unsupported.fix}`);
  const daemon = new Daemon(env);
  await daemon.start();
  await daemon.stopped();
}

/** recap's code as the daemon found it at start: a changed one refuses the start. */
type CodeCheck = Exclude<ReturnType<typeof checkInstalledCode>, { state: 'changed' }>;

export class Daemon {
  private log!: Logger;
  private readonly logDir: string;
  private readonly where: Listen;
  /** Socket files another process put in place of the daemon's (recap status --daemon tells the last few). */
  private readonly takenOver: { socket: string; time: number }[] = [];
  private code!: CodeCheck;
  private store!: EventStore;
  private started = 0;
  private projection!: Projection;
  private telemetry: Telemetry | undefined;
  private config!: ConfigService;
  private handler!: Handler;
  private servers!: LoopbackServers;
  private socketServer: SocketServer | undefined;
  private launcher: LauncherEndpoint | undefined;
  private spool: SpoolTaker | undefined;
  private auditChunks: AuditChunkWriter | undefined;
  private packer: EventPacker | undefined;
  private stopAsked: () => void = () => undefined;
  private readonly stopRequested = new Promise<void>((resolve) => (this.stopAsked = resolve));
  private finished: Promise<void> | undefined;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {
    this.logDir = eventLogDir(env);
    this.where = inheritedSocket(env) ?? { path: socketPath(env) };
  }

  /** Opens the log, rebuilds the projection, and listens; resolves once the daemon is ready. */
  async start(): Promise<void> {
    // recap's code as `recap install` recorded it, or no start (common/codeManifest.ts).
    const code = checkInstalledCode(this.env);
    if (code.state === 'changed') throw new DaemonStartError(code.message);
    this.code = code;
    this.log = createLogger(this.env);
    makeDataFolder(this.env);
    await this.openStore();
    await this.claimDataFolder();
    this.projection = await this.firstProjection();
    await this.watchStore();
    // The audit page's chunks written as the log grows, so its first opening folds only the newest events.
    this.auditChunks = new AuditChunkWriter(this.store, chunkEvents(this.env), (error) =>
      this.log.warn({ err: error }, "the audit page's chunks could not be written: the page folds those events when opened"),
    );
    this.config = this.openConfig();
    this.handler = this.newHandler();
    this.servers = new LoopbackServers(
      this.env,
      this.log,
      () => this.handler,
      () => this.projection,
      this.store,
      recapPaths(this.env),
    );
    await this.handler.recordUserConfig();
    this.logPending();
    // Signals are handled before the daemon says it is ready: a client may send one at once.
    process.on('SIGHUP', () => void this.reload());
    process.once('SIGTERM', (signal) => this.stop(signal));
    process.once('SIGINT', (signal) => this.stop(signal));
    await this.listen();
    const { where } = this;
    this.log.info({ socket: 'path' in where ? where.path : `fd ${where.fd}`, log: this.logDir, events: this.store.lastSeq, platform: platform().name }, 'recap daemon ready');
    // Load the token encoding now rather than on the first request, and list the snapshots
    // (on LevelDB's thread) before a `replay --at` asks for them.
    void this.handler.counter(this.config.user().config);
    void this.store.snapshotSeqs().catch(() => undefined);
    this.packer = startPacker(this.store, this.env, this.log);
    this.finished = this.stopRequested.then(() => this.close());
  }

  /** Asks the daemon to stop: it answers what is in flight, then closes. */
  stop(why: string): void {
    this.log.info({ signal: why }, 'shutting down: finishing requests in flight');
    this.stopAsked();
  }

  /** Resolves once the daemon, asked to stop, has closed. */
  stopped(): Promise<void> {
    return this.finished ?? Promise.reject(new Error('the daemon was not started'));
  }

  private async openStore(): Promise<void> {
    try {
      this.store = await EventStore.open(this.logDir, { snapshotSpacing: SNAPSHOT_SPACING_IN_SNAPSHOTS * snapshotEvery(this.env) });
    } catch (error) {
      if (error instanceof LogLocked) throw new DaemonStartError(lockedMessage(error, this.env));
      if (error instanceof LogUnreadable) throw new DaemonStartError(error.message);
      throw error;
    }
    this.started = Date.now();
  }

  private async closeStore(): Promise<void> {
    await this.store.close();
    removePidFile(process.pid, this.env);
  }

  /** Says who holds the data folder, once the log is ours, and writes the launcher the way out runs. */
  private async claimDataFolder(): Promise<void> {
    const { env, where } = this;
    try {
      // Who holds this data folder and where it will listen, as soon as the log is ours: a
      // CLI that finds nobody on the socket yet waits for this daemon rather than start
      // another, and one whose shell looks elsewhere (another XDG_RUNTIME_DIR) is told where.
      writePidFile({ pid: process.pid, socket: 'path' in where ? where.path : socketPath(env), version: VERSION, started: this.started }, env);
      // Once the log is ours (a second daemon must not rewrite it), before any answer names
      // it: the way out runs this launcher, not whatever PATH finds.
      writeLauncher(env);
    } catch (error) {
      await this.closeStore();
      const { code, path } = error as NodeJS.ErrnoException;
      throw new DaemonStartError(
        `recap's ${path ?? 'files in the data folder'} could not be written (${code ?? (error as Error).message}); make ${dataDir(env)} writable by you, then start again`,
      );
    }
  }

  private async loadProjection(): Promise<Projection> {
    const loaded = await loadProjection(this.store, (seq, why) => this.log.warn({ snapshot: seq }, `ignoring the snapshot at #${seq}: ${why}`));
    this.log.info({ snapshot: loaded.snapshotSeq ?? null, events: loaded.projection.lastSeq }, 'projection loaded');
    return loaded.projection;
  }

  private async firstProjection(): Promise<Projection> {
    try {
      return await this.loadProjection();
    } catch (error) {
      await this.closeStore();
      if (error instanceof UndecodableEvent || error instanceof UnknownEventVersion) {
        throw new DaemonStartError(`${error.message}; the log at ${this.logDir} cannot be replayed`);
      }
      throw error;
    }
  }

  /** Telemetry of what is appended from now on, and a rebuilt projection when a write fails. */
  private async watchStore(): Promise<void> {
    const { store, log } = this;
    // Only the events appended from now on (the history was replayed above), once they are on
    // disk: a failed write takes its events back, and so they are never exported.
    const telemetry = await telemetryFrom(this.env, {
      log,
      version: VERSION,
      unsummarized: () => unsummarizedTokens(this.projection),
      // The handler is made after this; an export comes later still.
      quality: () => this.handler?.quality.totals() ?? [],
    });
    this.telemetry = telemetry;
    if (telemetry)
      store.on(
        'appended',
        (events, durable) =>
          void durable.then(
            () => telemetry.appended(events),
            () => undefined,
          ),
      );
    store.on('failed', (error) => {
      log.error({ err: error }, 'a write to the event log failed; rebuilding the projection from the log');
      void this.loadProjection().then((rebuilt) => (this.projection = rebuilt));
      // The audit page's index saw events the log does not have.
      this.servers?.resetIndex();
    });
  }

  private openConfig(): ConfigService {
    const projection = () => this.projection;
    const config = new ConfigService(userConfigPath(this.env), this.env, this.projection.appliedConfig.get(USER_SCOPE), {
      approved: (scope) => projection().approvedConfig.get(scope),
      held: (scope) => projection().heldConfig.get(scope),
    });
    for (const problem of config.problems) this.log.error({ problem }, `config problem, keeping the last good configuration: ${problem}`);
    return config;
  }

  /** A change of the user's file that waits: in the daemon's log too, at start and on every re-read. */
  private logPending() {
    const pending = this.config.userPending();
    if (pending) this.log.warn({ file: pending.file, held: pending.held }, `config change waits for approval, the approved values stay in force: run ${pending.command}`);
    return pending;
  }

  private async reload() {
    const problems = this.config.reload();
    for (const problem of problems) this.log.error({ problem }, `config problem, keeping the last good configuration: ${problem}`);
    const pending = this.logPending();
    await this.handler.recordUserConfig();
    this.log.info('configuration re-read');
    return { file: this.config.userFile, problems, ...(pending ? { pending } : {}) };
  }

  private lifecycle(): Lifecycle {
    const { env, where, logDir } = this;
    return {
      info: () => ({
        pid: process.pid,
        version: VERSION,
        node: process.version,
        started: this.started,
        socket: 'path' in where ? where.path : `${socketPath(env)} (fd ${where.fd}, from systemd)`,
        dataDir: dataDir(env),
        eventLog: { path: logDir, bytes: folderBytes(logDir), events: this.store.lastSeq },
        daemonLog: daemonLog(env),
        config: this.config.userFile,
        code: this.code,
        ...(this.takenOver.length > 0 ? { takenOver: [...this.takenOver] } : {}),
      }),
      reload: () => this.reload(),
      // After the answer is on its way: the stop answers what is in flight, this request too.
      stop: () => setImmediate(() => this.stop('recap stop')),
    };
  }

  private newHandler(): Handler {
    const { env, telemetry } = this;
    return new Handler({
      env,
      store: this.store,
      projection: () => this.projection,
      config: this.config,
      recapPaths: recapPaths(env),
      protectedPaths: protectedPaths(env),
      readOnlyPaths: readOnlyPaths(env),
      shadowDirs: shadowDirs(env),
      home: env.HOME ?? homedir(),
      recapProcesses: recapProcesses(process.pid, [process.argv[0]!, ...process.execArgv, ...process.argv.slice(1)], () => platform().ownThreads()), // as ps shows it, Node's flags too
      snapshotEvery: snapshotEvery(env),
      enableHttp: () => this.servers.enableHttp(),
      enableUi: () => this.servers.enableUi(),
      log: this.log,
      verdicts: new VerdictFile(verdictPath(socketPath(env)), this.log),
      lifecycle: this.lifecycle(),
      ...(telemetry && { hookAnswered: (agent, ms, answer) => telemetry.hookAnswered(agent, ms, answer) }),
    });
  }

  private readonly socketTakenOver = (socket: string): void => {
    this.takenOver.push({ socket, time: Date.now() });
    if (this.takenOver.length > 10) this.takenOver.shift();
  };

  /** The main socket, the prompts kept while no daemon answered, the launcher's socket and the loopback servers used before. */
  private async listen(): Promise<void> {
    const { env, log, handler, where } = this;
    this.socketServer = new SocketServer(handler, log, limitsFrom(env), this.socketTakenOver);
    try {
      if ('path' in where) await clearStaleSocket(where.path);
      await this.socketServer.listen(where);
    } catch (error) {
      await this.closeStore();
      if (error instanceof SocketInUse || error instanceof SocketPathTooLong) throw new DaemonStartError(error.message);
      throw error;
    }
    // After listen: the socket's folder exists (0700).
    await handler.seedVerdicts();
    // The prompts recap-hook kept while no daemon answered are counted before the daemon says it
    // is ready; a hook that comes meanwhile waits for them, so a trip they cause reaches it.
    this.spool = new SpoolTaker(
      spoolDir(env),
      (entry) => handler.recordSpooled(entry),
      log,
      (pass) => handler.holdHooks(pass),
    );
    await this.spool.start();
    // The hook launcher's socket: without it hooks still work, each starting recap-hook.
    this.launcher = new LauncherEndpoint(handler, log, this.socketTakenOver);
    const launcherSocket = launcherSocketPath(socketPath(env));
    await this.launcher.listen(launcherSocket).catch((error: unknown) => {
      log.warn({ err: error, socket: launcherSocket }, "the hook launcher's socket could not be made: every hook call starts recap-hook instead");
    });
    await this.servers.resume();
  }

  private async close(): Promise<void> {
    // Requests waiting for new events (recap log -f) answer now, so closing need not wait for them.
    this.handler.close();
    this.servers.stopIndex();
    await Promise.all([this.socketServer?.close(), this.servers.close(), this.launcher?.close(), this.spool?.stop(), this.auditChunks?.stop(), this.packer?.stop()]);
    // What the last requests did is exported before the log closes; a dead collector waits no longer than this.
    await this.telemetry?.shutdown(TELEMETRY_DEADLINE_MS);
    await this.closeStore();
    this.log.info('recap daemon stopped');
    // Everything is closed; a library may still hold the process a while (an exporter retrying
    // a dead collector for its own timeout). `recap stop` waits for the process to end: end it.
    setTimeout(() => process.exit(), LINGER_MS).unref();
  }
}

/** The lock is taken: by which process, and how to end it. */
function lockedMessage(error: LogLocked, env: NodeJS.ProcessEnv): string {
  const holder = runningDaemon(env);
  if (!holder) return `${error.message}; stop it, then start again`;
  return `${error.message}: ${describeHolder(holder)}; stop it with recap stop (kill ${holder.pid} if it cannot be reached), or take over with recap restart`;
}

/** The event log's size on disk: its folder's files (LevelDB keeps no subfolders). */
function folderBytes(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    try {
      bytes += statSync(join(dir, name)).size;
    } catch {
      // A table compacted away between the listing and the stat.
    }
  }
  return bytes;
}

/** Where this daemon's own log goes: the file its stderr is (started by the CLI), or systemd's journal. */
function daemonLog(env: NodeJS.ProcessEnv): { file: string; bytes: number } | { stream: string } {
  try {
    const target = platform().openedAtSync(2);
    const stat = target?.startsWith('/') ? statSync(target) : undefined;
    if (target !== undefined && stat?.isFile()) return { file: target, bytes: stat.size };
  } catch {
    // Gone since: say what is known.
  }
  return { stream: env.JOURNAL_STREAM ? 'the systemd journal: journalctl --user -u recap' : 'the stderr of whoever started it' };
}

/**
 * Each job's unsummarized tokens, for telemetry's gauge: the jobs active in the last day (a
 * gauge of every job ever seen would grow with each session, past what a backend keeps).
 */
function* unsummarizedTokens(projection: Projection, now = Date.now()): Iterable<[string, number]> {
  for (const [job, state] of projection.jobs) if (now - state.lastActivity < GAUGE_ACTIVE_MS) yield [job, state.unsummarizedTokens];
}

const GAUGE_ACTIVE_MS = 24 * 3_600_000;

/** How long the process may live on once the daemon has stopped. */
const LINGER_MS = 300;
const TELEMETRY_DEADLINE_MS = 2_000;

const DEFAULT_SNAPSHOT_EVERY = 10_000;
/** Old snapshots are kept one in this many: `recap replay --at` then starts at most about 2x that many snapshots' events before any moment. */
const SNAPSHOT_SPACING_IN_SNAPSHOTS = 2;

function snapshotEvery(env: NodeJS.ProcessEnv): number {
  const every = Number(env.RECAP_SNAPSHOT_EVERY);
  return Number.isSafeInteger(every) && every > 0 ? every : DEFAULT_SNAPSHOT_EVERY;
}

/** The listening socket systemd hands over with socket activation (always fd 3). */
function inheritedSocket(env: NodeJS.ProcessEnv): Listen | undefined {
  if (env.LISTEN_PID !== String(process.pid) || Number(env.LISTEN_FDS ?? 0) < 1) return undefined;
  return { fd: 3 };
}
