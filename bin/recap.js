#!/usr/bin/env node
// `recap daemon`, exactly as autostart, systemd and `npm start` run it, goes straight to the
// bundled daemon: the command-line parser and the client's modules are never loaded, which
// takes a good part off the daemon's start-up. The plain forms of status, context, chain,
// replay --at and verify go to their own bundle (dist/client/quick.bundle.js), for the same reason.
// Everything else goes through the CLI.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);

// recap's code is checked against the manifest `recap install` wrote before anything of the
// daemon is loaded, bundle or not: the bundle imports level, msgpackr and pino at once (and
// dist/daemon/daemon.js, when the bundle is stale, the same), so code slipped into them would
// run before any check of the daemon's own. The daemon's check (runDaemon) finds this verdict.
if (args[0] === 'daemon' && !(await codeAsInstalled())) process.exitCode = 1;
else if (args.length === 1 && args[0] === 'daemon' && bundleIsCurrent('dist/daemon/daemon.bundle.js')) await daemon();
else if (!(await quick())) await cli();

async function cli() {
  const { main } = await import('../dist/main.js');
  await main();
}

/**
 * Runs a plain `recap status|context|chain|replay|verify` from its bundle; false when `args` are not one of
 * those forms, or the bundle is not current (the CLI then runs them from dist/).
 */
async function quick() {
  // The command's name first: for any other, not even the bundle's inputs are read.
  if (!['status', 'context', 'chain', 'replay', 'verify'].includes(args[0]) || !bundleIsCurrent('dist/client/quick.bundle.js')) return false;
  const { runQuick } = await import('../dist/client/quick.bundle.js');
  const running = runQuick(args);
  if (running === undefined) return false;
  await running;
  return true;
}

/**
 * Whether `bundle` is there and newer than each of recap's files it was made from, listed
 * beside it (x.bundle.inputs.json); after a bare `tsc` it is not: the CLI then runs the
 * command from dist/.
 */
function bundleIsCurrent(bundle) {
  try {
    // Plain paths: a URL made for each of some fifty files would add half as much again as their stat calls.
    const root = fileURLToPath(new URL('../', import.meta.url));
    const built = statSync(root + bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(root + bundle.replace(/\.js$/, '.inputs.json'), 'utf8'));
    return inputs.length > 0 && inputs.every((input) => statSync(root + input).mtimeMs <= built);
  } catch {
    return false;
  }
}

/** Whether recap's code is as `recap install` recorded it (or nothing was recorded); if not, says why as the daemon's start would. */
async function codeAsInstalled() {
  try {
    const { checkInstalledCode } = await import('../dist/common/codeManifest.js');
    const code = checkInstalledCode();
    if (code.state !== 'changed') return true;
    process.stderr.write(`recap: ${code.message}\n`);
  } catch (error) {
    process.stderr.write(`recap: recap's installed code could not be checked (${error?.message ?? String(error)}); reinstall recap (in its clone: npm install, then npm link)\n`);
  }
  return false;
}

async function daemon() {
  const { runDaemon, UserError } = await import('../dist/daemon/daemon.bundle.js');
  try {
    await runDaemon();
  } catch (error) {
    // As the CLI reports a failure: one line, no stack (DaemonStartError is a UserError).
    if (error instanceof UserError) process.stderr.write(`recap: ${error.message}\n`);
    else process.stderr.write(`recap: ${error?.message ?? String(error)} (run with --debug for details)\n`);
    // Whatever a failed start left open (the log, a timer, a half-made server) must not keep a daemon that answers nobody.
    process.exit(1);
  }
}
