// The daemon's two servers on 127.0.0.1, each started on first use and once only: the HTTP
// hook endpoint (`recap install <agent> --http`, the `http` op) and the audit page's server
// (`recap ui`). Each listens on the user's own port (listenOnUsersPort) and comes back with
// the daemon when it was used before.
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { httpTokenFile, uiTokenFile } from '../common/paths.js';
import { httpPort, httpPortFile, uiPort, uiPortFile } from '../common/httpPort.js';
import { CommandRefused } from '../events/commands.js';
import { HTTP_HOOK_AGENT } from '../agents/hookRoutes.js';
import type { EventStore } from './eventStore.js';
import type { Handler } from './handler.js';
import { hookPath, HttpEndpoint } from './httpServer.js';
import { ensureToken, listenOnUsersPort } from './loopback.js';
import type { Projection } from './projection.js';
import { UiApi } from './uiApi.js';
import { chunkEvents } from './auditChunks.js';
import { UiServer } from './uiServer.js';

export type HttpInfo = { url: string; tokenFile: string };

/** The audit page's bundle: dist/ui, from dist/daemon (where both daemon.js and its bundle are). */
const UI_ASSETS = new URL('../ui/', import.meta.url);

/** Starts a server once (the first call's arguments win): callers meanwhile share the start; a failed start may be tried again. */
function once<A extends unknown[], T>(start: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  let started: Promise<T> | undefined;
  return (...args) =>
    (started ??= start(...args).catch((error: unknown) => {
      started = undefined;
      throw error;
    }));
}

export class LoopbackServers {
  private endpoint: HttpEndpoint | undefined;
  private uiServer: UiServer | undefined;
  private uiApi: UiApi | undefined;
  private readonly serveHttp = once((choose: boolean) => this.startHttp(choose));
  private readonly serveUi = once(() => this.startUi());

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
    private readonly handler: () => Handler,
    private readonly projection: () => Projection,
    private readonly store: EventStore,
    /** The real recap's paths, for the HTTP endpoint's way out. */
    private readonly recapPaths: ReadonlySet<string>,
  ) {}

  /**
   * The HTTP hook endpoint, started if it is not running. `choose`: a kept port that is taken
   * now gives way to a free one (at install, which rewrites the hooks' URL).
   */
  enableHttp(choose = true): Promise<HttpInfo> {
    return this.serveHttp(choose);
  }

  /** The audit page's server, started if it is not running; the URL to open, with its token. */
  async enableUi(): Promise<{ url: string }> {
    const server = await this.serveUi();
    // The page's data is read from memory once the log is indexed: `recap ui` waits for it,
    // so the page opens at once.
    await this.uiApi!.ready();
    return { url: server.url() };
  }

  /** At start: the servers used before listen again. */
  async resume(): Promise<void> {
    // `recap install --http` made a token: the endpoint is wanted.
    if (existsSync(httpTokenFile(this.env))) {
      try {
        // The hooks already name the kept port: a taken one is reported, never silently moved.
        await this.enableHttp(false);
      } catch (error) {
        if (error instanceof CommandRefused) this.log.error(`the HTTP hook endpoint could not start: ${error.message}`);
        else this.log.error({ err: error }, 'the HTTP hook endpoint could not start');
      }
    }
    // The audit page was used before: its server listens again at once, so a page left open
    // hears that its session ended (the log is indexed only when the page's data is asked for).
    if (existsSync(uiPortFile(this.env))) {
      await this.serveUi().catch((error: unknown) => this.log.warn({ err: error }, 'the audit page could not listen again; recap ui will try'));
    }
  }

  /** The log lost events the audit page's index saw (a failed write): it is built again. */
  resetIndex(): void {
    this.uiApi?.index.reset();
  }

  /** Stops following the log: requests waiting on it need not hold up the stop. */
  stopIndex(): void {
    this.uiApi?.index.stop();
  }

  async close(): Promise<void> {
    await Promise.all([this.endpoint?.close(), this.uiServer?.close()]);
  }

  private async startHttp(choose: boolean): Promise<HttpInfo> {
    const tokenFile = httpTokenFile(this.env);
    const server = new HttpEndpoint(this.handler(), ensureToken(tokenFile), this.log, this.recapPaths);
    const port = await listenOnUsersPort(server, {
      variable: 'RECAP_HTTP_PORT',
      asked: httpPort(this.env),
      file: httpPortFile(this.env),
      ...(choose ? {} : { keptIsPromised: `run recap install ${HTTP_HOOK_AGENT} --http again: it chooses a free port and rewrites the hooks` }),
    });
    this.endpoint = server;
    const url = `http://127.0.0.1:${port}${hookPath(HTTP_HOOK_AGENT)}`;
    this.log.info({ url }, 'HTTP hook endpoint listening');
    return { url, tokenFile };
  }

  private async startUi(): Promise<UiServer> {
    this.uiApi = new UiApi(
      this.handler(),
      this.projection,
      this.store,
      chunkEvents(this.env),
      (error) => this.log.error({ err: error }, "the audit page's index failed to follow the log; building it again"),
      (how) => this.log.info(how, "the audit page's index read its chunks; folding the events after them"),
    );
    const server = new UiServer(this.uiApi, ensureToken(uiTokenFile(this.env)), UI_ASSETS, this.log);
    const port = await listenOnUsersPort(server, { variable: 'RECAP_UI_PORT', asked: uiPort(this.env), file: uiPortFile(this.env) });
    this.uiServer = server;
    this.log.info({ url: `http://127.0.0.1:${port}/` }, 'audit page listening');
    return server;
  }
}
