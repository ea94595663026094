// The daemon's life: take the log's lock, rebuild the projection, replace a stale socket,
// listen and say so in a pid file; on SIGHUP (or `recap reload`) re-read the config; on
// SIGTERM (or `recap stop`) finish what is in flight and close.
import { existsSync, mkdirSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { UserError } from '../common/errors.js';
import { dataDir, eventLogDir, httpTokenFile, launcherSocketPath, socketPath, uiTokenFile, userConfigPath } from '../common/paths.js';
import { httpPort, httpPortFile, keepPort, keptPort, uiPort, uiPortFile } from '../common/httpPort.js';
import { describeHolder, removePidFile, runningDaemon, writePidFile } from '../common/daemonRecord.js';
import { ConfigService } from './configService.js';
import { EventStore, LogLocked, LogUnreadable } from './eventStore.js';
import { Handler, VERSION, type Lifecycle } from './handler.js';
import { HOOK_PATH, HttpEndpoint } from './httpServer.js';
import { ensureToken, PortBusy } from './loopback.js';
import { createLogger } from './logger.js';
import { UnknownEventVersion } from '../events/upcast.js';
import { CommandRefused } from '../events/commands.js';
import { UndecodableEvent } from './codec.js';
import { type Projection, USER_SCOPE } from './projection.js';
import { loadProjection } from './snapshot.js';
import { protectedPaths, readOnlyPaths, recapPaths, recapProcesses, shadowDirs, writeLauncher } from '../agents/recapPaths.js';
import { LauncherEndpoint } from './launcherEndpoint.js';
import { UiApi } from './uiApi.js';
import { UiServer } from './uiServer.js';
import { limitsFrom, SocketServer, type Listen } from './socketServer.js';
import { clearStaleSocket, SocketInUse } from '../common/staleSocket.js';
import { VerdictFile, verdictPath } from '../common/verdicts.js';
import { SpoolTaker } from './spoolTaker.js';
import { spoolDir } from '../common/promptSpool.js';
import { telemetryFrom } from './telemetry/index.js';
import { checkInstalledCode } from '../common/codeManifest.js';

/** A start-up failure the user can fix; its message says how. */
export class DaemonStartError extends UserError {}

export async function runDaemon(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // recap's code as `recap install` recorded it, or no start (common/codeManifest.ts).
  const code = checkInstalledCode(env);
  if (code.state === 'changed') throw new DaemonStartError(code.message);
  const log = createLogger(env);
  const logDir = eventLogDir(env);
  mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });

  let store: EventStore;
  try {
    store = await EventStore.open(logDir, { snapshotSpacing: SNAPSHOT_SPACING_IN_SNAPSHOTS * snapshotEvery(env) });
  } catch (error) {
    if (error instanceof LogLocked) throw new DaemonStartError(lockedMessage(error, env));
    if (error instanceof LogUnreadable) throw new DaemonStartError(error.message);
    throw error;
  }
  const started = Date.now();
  /** Socket files another process put in place of the daemon's (recap status --daemon tells the last few). */
  const takenOver: { socket: string; time: number }[] = [];
  const socketTakenOver = (socket: string) => {
    takenOver.push({ socket, time: Date.now() });
    if (takenOver.length > 10) takenOver.shift();
  };
  const where = inheritedSocket(env) ?? { path: socketPath(env) };
  const closeStore = async () => {
    await store.close();
    removePidFile(process.pid, env);
  };
  try {
    // Who holds this data folder and where it will listen, as soon as the log is ours: a
    // CLI that finds nobody on the socket yet waits for this daemon rather than start
    // another, and one whose shell looks elsewhere (another XDG_RUNTIME_DIR) is told where.
    writePidFile({ pid: process.pid, socket: 'path' in where ? where.path : socketPath(env), version: VERSION, started }, env);
    // Once the log is ours (a second daemon must not rewrite it), before any answer names
    // it: the way out runs this launcher, not whatever PATH finds.
    writeLauncher(env);
  } catch (error) {
    await closeStore();
    const { code, path } = error as NodeJS.ErrnoException;
    throw new DaemonStartError(
      `recap's ${path ?? 'files in the data folder'} could not be written (${code ?? (error as Error).message}); make ${dataDir(env)} writable by you, then start again`,
    );
  }
  const load = async () => {
    const loaded = await loadProjection(store, (seq, why) => log.warn({ snapshot: seq }, `ignoring the snapshot at #${seq}: ${why}`));
    log.info({ snapshot: loaded.snapshotSeq ?? null, events: loaded.projection.lastSeq }, 'projection loaded');
    return loaded.projection;
  };
  let projection: Projection;
  try {
    projection = await load();
  } catch (error) {
    await closeStore();
    if (error instanceof UndecodableEvent || error instanceof UnknownEventVersion) {
      throw new DaemonStartError(`${error.message}; the log at ${logDir} cannot be replayed`);
    }
    throw error;
  }
  // Only the events appended from now on (the history was replayed above), once they are on
  // disk: a failed write takes its events back, and so they are never exported.
  const telemetry = await telemetryFrom(env, { log, version: VERSION, unsummarized: () => unsummarizedTokens(projection) });
  if (telemetry)
    store.on(
      'appended',
      (events, durable) =>
        void durable.then(
          () => telemetry.appended(events),
          () => undefined,
        ),
    );
  let uiApi: UiApi | undefined;
  store.on('failed', (error) => {
    log.error({ err: error }, 'a write to the event log failed; rebuilding the projection from the log');
    void load().then((rebuilt) => (projection = rebuilt));
    // The audit page's index saw events the log does not have.
    uiApi?.index.reset();
  });

  const config = new ConfigService(userConfigPath(env), env, projection.appliedConfig.get(USER_SCOPE), {
    approved: (scope) => projection.approvedConfig.get(scope),
    held: (scope) => projection.heldConfig.get(scope),
  });
  for (const problem of config.problems) log.error({ problem }, `config problem, keeping the last good configuration: ${problem}`);
  /** A change of the user's file that waits: in the daemon's log too, at start and on every re-read. */
  const logPending = () => {
    const pending = config.userPending();
    if (pending) log.warn({ file: pending.file, held: pending.held }, `config change waits for approval, the approved values stay in force: run ${pending.command}`);
    return pending;
  };
  const reload = () => {
    const problems = config.reload();
    for (const problem of problems) log.error({ problem }, `config problem, keeping the last good configuration: ${problem}`);
    const pending = logPending();
    return handler.recordUserConfig().then(() => {
      log.info('configuration re-read');
      return { file: config.userFile, problems, ...(pending ? { pending } : {}) };
    });
  };
  let stop: (why: string) => void = () => undefined;
  const lifecycle: Lifecycle = {
    info: () => ({
      pid: process.pid,
      version: VERSION,
      node: process.version,
      started,
      socket: 'path' in where ? where.path : `${socketPath(env)} (fd ${where.fd}, from systemd)`,
      dataDir: dataDir(env),
      eventLog: { path: logDir, bytes: folderBytes(logDir), events: store.lastSeq },
      daemonLog: daemonLog(env),
      config: config.userFile,
      code,
      ...(takenOver.length > 0 ? { takenOver: [...takenOver] } : {}),
    }),
    reload,
    // After the answer is on its way: the stop answers what is in flight, this request too.
    stop: () => setImmediate(() => stop('recap stop')),
  };
  type HttpInfo = { url: string; tokenFile: string };
  let http: Promise<HttpInfo> | undefined;
  let endpoint: HttpEndpoint | undefined;
  /** `choose`: a kept port that is taken now gives way to a free one (at install, which rewrites the hooks' URL). */
  const enableHttp = (choose = true): Promise<HttpInfo> =>
    (http ??= startHttp(choose).catch((error: unknown) => {
      http = undefined;
      throw error;
    }));
  const verdicts = new VerdictFile(verdictPath(socketPath(env)), log);
  const handler: Handler = new Handler({
    store,
    projection: () => projection,
    config,
    recapPaths: recapPaths(env),
    protectedPaths: protectedPaths(env),
    readOnlyPaths: readOnlyPaths(env),
    shadowDirs: shadowDirs(env),
    home: env.HOME ?? homedir(),
    recapProcesses: recapProcesses(process.pid, process.argv),
    snapshotEvery: snapshotEvery(env),
    enableHttp,
    enableUi: () => enableUi(),
    log,
    verdicts,
    lifecycle,
    ...(telemetry && { hookAnswered: (agent, ms, answer) => telemetry.hookAnswered(agent, ms, answer) }),
  });
  /**
   * The endpoint on this user's own port: RECAP_HTTP_PORT when set, else the one kept beside
   * the token, else a free one the system picks (then kept), so two users never share one.
   */
  async function startHttp(choose: boolean): Promise<HttpInfo> {
    const tokenFile = httpTokenFile(env);
    const portFile = httpPortFile(env);
    const asked = httpPort(env);
    const kept = keptPort(portFile);
    const server = new HttpEndpoint(handler, ensureToken(tokenFile), log, recapPaths(env));
    let port: number;
    try {
      port = await server.listen(asked ?? kept ?? 0);
    } catch (error) {
      if (!(error instanceof PortBusy)) throw error;
      if (asked !== undefined) throw new CommandRefused(`${error.message}; set RECAP_HTTP_PORT to a free port, or unset it and recap chooses one`);
      if (!choose) throw new CommandRefused(`${error.message}; run recap install claude --http again: it chooses a free port and rewrites the hooks`);
      port = await server.listen(0);
    }
    if (asked === undefined) keepPort(portFile, port);
    endpoint = server;
    const url = `http://127.0.0.1:${port}${HOOK_PATH}`;
    log.info({ url }, 'HTTP hook endpoint listening');
    return { url, tokenFile };
  }
  let ui: Promise<UiServer> | undefined;
  let uiServer: UiServer | undefined;
  const serveUi = () =>
    (ui ??= startUi().catch((error: unknown) => {
      ui = undefined;
      throw error;
    }));
  const enableUi = async () => {
    const server = await serveUi();
    // The page's data is read from memory once the log is indexed: `recap ui` waits for it,
    // so the page opens at once.
    await uiApi!.ready();
    return { url: server.url() };
  };
  /** The audit page's server, on the port RECAP_UI_PORT names, else the kept one, else a free one (then kept). */
  async function startUi(): Promise<UiServer> {
    uiApi = new UiApi(
      handler,
      () => projection,
      store,
      (error) => log.error({ err: error }, "the audit page's index failed to follow the log; building it again"),
    );
    const server = new UiServer(uiApi, ensureToken(uiTokenFile(env)), UI_ASSETS, log);
    const asked = uiPort(env);
    let port: number;
    try {
      port = await server.listen(asked ?? keptPort(uiPortFile(env)) ?? 0);
    } catch (error) {
      if (!(error instanceof PortBusy)) throw error;
      if (asked !== undefined) throw new CommandRefused(`${error.message}; set RECAP_UI_PORT to a free port, or unset it and recap chooses one`);
      port = await server.listen(0);
    }
    if (asked === undefined) keepPort(uiPortFile(env), port);
    uiServer = server;
    log.info({ url: `http://127.0.0.1:${port}/` }, 'audit page listening');
    return server;
  }
  await handler.recordUserConfig();
  logPending();

  // Signals are handled before the daemon says it is ready: a client may send one at once.
  process.on('SIGHUP', () => void reload());
  const stopped = new Promise<void>((resolve) => {
    stop = (signal: string) => {
      log.info({ signal }, 'shutting down: finishing requests in flight');
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });

  const server = new SocketServer(handler, log, limitsFrom(env), socketTakenOver);
  if ('path' in where) {
    try {
      await clearStaleSocket(where.path);
    } catch (error) {
      await closeStore();
      if (error instanceof SocketInUse) throw new DaemonStartError(error.message);
      throw error;
    }
  }
  await server.listen(where);
  // After listen: the socket's folder exists (0700).
  await handler.seedVerdicts();
  // The prompts recap-hook kept while no daemon answered are counted before the daemon says it
  // is ready; a hook that comes meanwhile waits for them, so a trip they cause reaches it.
  const spool = new SpoolTaker(
    spoolDir(env),
    (entry) => handler.recordSpooled(entry),
    log,
    (pass) => handler.holdHooks(pass),
  );
  await spool.start();
  // The hook launcher's socket: without it hooks still work, each starting recap-hook.
  const launcher = new LauncherEndpoint(handler, log, socketTakenOver);
  const launcherSocket = launcherSocketPath(socketPath(env));
  await launcher.listen(launcherSocket).catch((error: unknown) => {
    log.warn({ err: error, socket: launcherSocket }, "the hook launcher's socket could not be made: every hook call starts recap-hook instead");
  });
  // `recap install claude --http` made a token: the endpoint is wanted.
  if (existsSync(httpTokenFile(env))) {
    try {
      // The hooks already name the kept port: a taken one is reported, never silently moved.
      await enableHttp(false);
    } catch (error) {
      if (error instanceof CommandRefused) log.error(`the HTTP hook endpoint could not start: ${error.message}`);
      else log.error({ err: error }, 'the HTTP hook endpoint could not start');
    }
  }
  // The audit page was used before: its server listens again at once, so a page left open
  // hears that its session ended (the log is indexed only when the page's data is asked for).
  if (existsSync(uiPortFile(env))) {
    await serveUi().catch((error: unknown) => log.warn({ err: error }, 'the audit page could not listen again; recap ui will try'));
  }
  log.info({ socket: 'path' in where ? where.path : `fd ${where.fd}`, log: logDir, events: store.lastSeq }, 'recap daemon ready');
  // Load the token encoding now rather than on the first request.
  void handler.counter(config.user().config);

  await stopped;
  // Requests waiting for new events (recap log -f) answer now, so closing need not wait for them.
  handler.close();
  uiApi?.index.stop();
  await Promise.all([server.close(), endpoint?.close(), launcher.close(), uiServer?.close(), spool.stop()]);
  // What the last requests did is exported before the log closes; a dead collector waits no longer than this.
  await telemetry?.shutdown(TELEMETRY_DEADLINE_MS);
  await closeStore();
  log.info('recap daemon stopped');
  // Everything is closed; a library may still hold the process a while (an exporter retrying
  // a dead collector for its own timeout). `recap stop` waits for the process to end: end it.
  setTimeout(() => process.exit(), LINGER_MS).unref();
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
    const target = readlinkSync('/proc/self/fd/2');
    const stat = target.startsWith('/') ? statSync(target) : undefined;
    if (stat?.isFile()) return { file: target, bytes: stat.size };
  } catch {
    // No /proc: say what is known.
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

/** The audit page's bundle: dist/ui, from dist/daemon (where both daemon.js and its bundle are). */
const UI_ASSETS = new URL('../ui', import.meta.url);

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
