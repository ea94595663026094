// What the command line needs of the daemon's side, handed in by the composition root
// (src/main.ts): the client never imports src/daemon, and each is loaded only when its
// command runs, so the CLI's start-up stays as small as it is.
export type DaemonSide = {
  /** `recap daemon`: runs the daemon in this process until it is stopped. */
  runDaemon(): Promise<void>;
  /** `recap import`: rebuilds the event log in `logDir` from an export; the events imported. */
  importLog(file: string, logDir: string, onProgress?: (done: number) => void): Promise<number>;
  /**
   * `recap export`: what makes a page of stored events (the `events` op's `stored` records)
   * into the export's JSON Lines, in this process; each page's lines are good until the next.
   */
  exportLines(): Promise<(records: Buffer) => Buffer>;
};
