// The Node options `recap daemon` runs with, wherever it is started (autostart, the systemd
// unit, `npm start`, the benchmarks). Node built-ins only.

/**
 * V8's young generation capped at 4 MB per semi-space (Node's default is 16 MB, of which it
 * keeps up to three in memory once a steady load has grown them). The daemon's requests
 * make small, short-lived objects, so a smaller nursery costs a little more scavenging and
 * nothing else; its RSS under load is tens of MB lower (BENCHMARKS.md, daemon memory).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
