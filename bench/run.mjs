#!/usr/bin/env node
// `npm run bench`: runs the benchmark scripts one after the other (each starts its own
// daemon on temporary folders; nothing touches the network), then writes bench/results.json
// and BENCHMARKS.md with every figure next to its target and its baseline. A missed target
// is reported, not failed: the benchmark is not a test. Exit 1 only when a script fails.
//   node bench/run.mjs [--quick]    (--quick: a smoke run, under a minute)
//   node bench/run.mjs --scale [--sizes=10000,100000]
// --scale runs bench/scale.mjs alone (logs up to 10M events: long, and kept apart from the
// other scripts' figures so that they can be run again without it): its rows replace those
// of the same sizes in bench/results.json, and every other section is kept from there. A run
// without --scale keeps the scale rows of the run before.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const scale = process.argv.includes('--scale');
const sizesArg = process.argv.find((a) => a.startsWith('--sizes='));
const HOOK_RUNS = quick ? 20 : 100;

/** The scripts, in the order they run; each prints one JSON object with --json. */
const SCRIPTS = {
  hook: { file: 'hook.mjs', args: ['--runs', String(HOOK_RUNS)], timeoutS: quick ? 60 : 600 },
  service: { file: 'service.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 900 },
  replay: { file: 'replay.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 120 : 3600 },
  tokens: { file: 'tokens.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 300 },
  auditPage: { file: 'auditPage.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 120 : 900 },
  codeManifest: { file: 'codeManifest.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 300 },
  memory: { file: 'memory.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 600 },
  search: { file: 'search.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 1200 },
  secrets: { file: 'secrets.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 60 : 300 },
  sync: { file: 'sync.mjs', args: quick ? ['--quick'] : [], timeoutS: quick ? 120 : 900 },
};
/** Run by --scale alone; building the 10M log takes most of its time (once: it is cached). */
const SCALE = { file: 'scale.mjs', args: [...(quick ? ['--quick'] : []), ...(sizesArg ? [sizesArg] : [])], timeoutS: 4 * 3600 };

if (!existsSync(join(root, 'dist', 'daemon')) || !existsSync(join(root, 'bin', 'recap-hook.cjs'))) {
  console.error('recap is not built: run `npm run build` first.');
  process.exit(1);
}

/** The script running now, so that an interrupted run stops it and its daemon too. */
let running;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    if (running) process.kill(-running.pid, 'SIGTERM');
    process.exit(130);
  });
}

/** Runs one script; resolves to its JSON, or to { error } when it fails or times out. */
function runScript({ file, args, timeoutS }) {
  return new Promise((done) => {
    const started = Date.now();
    // A process group of its own: on a timeout the script and the daemon it started both stop.
    const child = spawn(process.execPath, [join(root, 'bench', file), ...args, '--json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGTERM'), timeoutS * 1000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running = undefined;
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(signal ? `killed by ${signal} after ${seconds} s` : `exited ${code}`);
        done({ seconds, value: JSON.parse(line) });
      } catch (error) {
        const detail = stderr.trim().split('\n').slice(-5).join('\n');
        done({ seconds, error: `bench/${file} ${error.message}${detail ? `: ${detail}` : ''}` });
      }
    });
    process.stderr.write(`bench/${file} ${args.join(' ')}...\n`);
  });
}

function machine() {
  let os = `${type()} ${release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (pretty) os = `${pretty[1]} (${os})`;
  } catch {
    // No os-release: the kernel's name and release say enough.
  }
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os,
    node: process.version,
  };
}

// Each figure: what it is, its value, the target it must meet (if any), the baseline it is
// read against (if any), and whether it met the target (null: no target, or not measured).
const atLeast = (value, target) => (value == null ? null : value >= target);
const below = (value, target) => (value == null ? null : value < target);

function figure(name, value, unit, { target, met, baseline } = {}) {
  return { name, value: value ?? null, unit, target: target ?? null, baseline: baseline ?? null, met: target ? (met ?? null) : null };
}

function hookSection(r) {
  const agents = Object.entries(r.agents ?? {});
  const jq = r.shellSkipped ? 'skipped' : `${r.medianMs.shellJq} ms`;
  return {
    title: 'Hook process cost',
    method:
      "The wall time of the hook command each agent runs, from spawn to exit, with that agent's tool-call payload on stdin, answered by a live daemon: " +
      'the launcher every install writes (`/bin/sh bin/recap-hook.sh NODE AGENT`, which posts the payload with a bare perl, or curl where there is no perl, and starts no Node), ' +
      'and `recap-hook <agent>`, the Node client the launcher hands a call to when the daemon cannot take it. ' +
      `Interleaved ${r.runs} times with \`node -e 0\` and with a bash script that reads the payload with jq and prints a deny (a shell prototype's hook). Medians (p95 beside).`,
    figures: [
      ...agents.flatMap(([agent, a]) => [
        figure(`launcher ${agent}`, a.medianMs, 'ms', {
          target: `< bash + jq`,
          met: r.shellSkipped ? null : a.medianMs < r.medianMs.shellJq,
          baseline: `node -e 0: ${r.medianMs.nodeE0} ms; bash + jq: ${jq}; p95 ${a.p95Ms} ms`,
        }),
        figure(`launcher ${agent} / node -e 0`, a.ratio, 'x', { target: `<= ${r.target}x`, met: a.ratio <= r.target, baseline: 'node -e 0 = 1x' }),
        figure(`recap-hook ${agent} (fallback) / node -e 0`, a.fallback.ratio, 'x', {
          target: `<= ${r.fallbackTarget}x`,
          met: a.fallback.ratio <= r.fallbackTarget,
          baseline: `${a.fallback.medianMs} ms, p95 ${a.fallback.p95Ms} ms`,
        }),
      ]),
      ...(r.curl
        ? [figure('launcher claude over curl (where there is no perl) / node -e 0', r.curl.ratio, 'x', { baseline: `${r.curl.medianMs} ms, p95 ${r.curl.p95Ms} ms` })]
        : []),
      figure('bash + jq hook / node -e 0', r.shellRatio, 'x', { baseline: r.shellSkipped ? `skipped: ${r.shellSkipped}` : 'node -e 0 = 1x' }),
      ...(r.cli
        ? [
            figure('recap status', r.cli.medianMs, 'ms', { baseline: `node -e 0: ${r.medianMs.nodeE0} ms` }),
            figure('recap status / node -e 0', r.cli.ratio, 'x', { target: `<= ${r.cli.target}x`, met: r.cli.ratio <= r.cli.target, baseline: 'node -e 0 = 1x' }),
          ]
        : []),
    ],
  };
}

function serviceSections(s) {
  const t = s.targets;
  const r = s.results;
  const one = r.checks1;
  return [
    {
      title: "A user's command",
      method:
        "`pause` requests from one client, one at a time, as a user's terminal sends them: the daemon asks the kernel which process sent each (ss, then /proc) and judges its ancestry before it runs it. `status`, which needs no such check, is the baseline; hooks and checks never pay it.",
      figures: [
        figure('pause, p50', r.control?.pause.p50Ms, 'ms', {
          target: `< ${t.controlP50Ms} ms`,
          met: below(r.control?.pause.p50Ms, t.controlP50Ms),
          baseline: r.control && `status: p50 ${r.control.status.p50Ms} ms, p99 ${r.control.status.p99Ms} ms`,
        }),
        figure('pause, p99', r.control?.pause.p99Ms, 'ms', { baseline: r.control && `status: p99 ${r.control.status.p99Ms} ms` }),
      ],
    },
    {
      title: 'HTTP hook round trip',
      method: "PreToolUse payloads POSTed one at a time to the daemon's loopback hook endpoint over one keep-alive connection, after a warm-up; the round trip's percentiles.",
      figures: [
        figure('p50', r.http?.p50Ms, 'ms', { baseline: one && `socket check, 1 client: p50 ${one.p50Ms} ms` }),
        figure('p99', r.http?.p99Ms, 'ms', {
          target: `< ${t.httpP99Ms} ms`,
          met: below(r.http?.p99Ms, t.httpP99Ms),
          baseline: one && `socket check, 1 client: p99 ${one.p99Ms} ms`,
        }),
      ],
    },
    {
      title: 'Checks over the socket',
      method:
        '`check` requests (is this tool call allowed?) over the Unix socket: from 1 client with one request in flight (the baseline), from 64 clients with one request in flight each (the shape hooks send), and from 64 clients each keeping 4 in flight (pipelining). ' +
        `The daemon and the load generator are kept apart: ${r.apart ?? 'not reported'}. CPU per check is the daemon's, from /proc.`,
      figures: [
        figure('1 client', one?.perSecond, '/s', { baseline: one && `p50 ${one.p50Ms} ms, p99 ${one.p99Ms} ms, daemon CPU ${one.daemonCpuUs} us/check` }),
        figure('64 clients x 1 in flight, p99', r.checks64?.p99Ms, 'ms', {
          target: `< ${t.checkP99Ms64} ms`,
          met: below(r.checks64?.p99Ms, t.checkP99Ms64),
          baseline: one && `1 client: ${one.p99Ms} ms`,
        }),
        figure('64 clients x 1 in flight', r.checks64?.perSecond, '/s', {
          baseline: r.checks64 && `p50 ${r.checks64.p50Ms} ms, daemon CPU ${r.checks64.daemonCpuUs} us/check`,
        }),
        figure('64 clients x 4 in flight', r.checks64Pipelined?.perSecond, '/s', {
          target: `>= ${t.checksPerSecond64Pipelined?.toLocaleString('en')}/s`,
          met: atLeast(r.checks64Pipelined?.perSecond, t.checksPerSecond64Pipelined),
          baseline: one && `1 client: ${one.perSecond.toLocaleString('en')}/s`,
        }),
        figure('64 clients x 4 in flight, p99', r.checks64Pipelined?.p99Ms, 'ms', {
          baseline: r.checks64Pipelined && `p50 ${r.checks64Pipelined.p50Ms} ms, daemon CPU ${r.checks64Pipelined.daemonCpuUs} us/check`,
        }),
      ],
    },
    {
      title: 'Durable records',
      method:
        "`record` requests, each answered only once its event is fsynced, from 1 writer and from 64 concurrent writers; records per fsync from the daemon's counters (group commit).",
      figures: [
        figure('1 writer', r.records1?.perSecond, '/s', { baseline: r.records1 && `records per fsync: ${r.records1.recordsPerFsync}` }),
        figure('64 writers', r.records64?.perSecond, '/s', {
          target: `>= ${t.recordsPerSecond64.toLocaleString('en')}/s`,
          met: atLeast(r.records64?.perSecond, t.recordsPerSecond64),
          baseline: r.records1 && `1 writer: ${r.records1.perSecond.toLocaleString('en')}/s`,
        }),
        figure('64 writers, records per fsync', r.records64?.recordsPerFsync, '', {
          target: `>= ${t.recordsPerFsync64}`,
          met: atLeast(r.records64?.recordsPerFsync, t.recordsPerFsync64),
          baseline: r.records1 && `1 writer: ${r.records1.recordsPerFsync}`,
        }),
      ],
    },
  ];
}

function tokensSection(t) {
  return {
    title: 'Token counting',
    method:
      "Exact o200k_base counts of prose (README.md without its code blocks), code (compiled daemon modules) and JSON (package-lock.json's packages): " +
      "recap's counter (special-token text as ordinary text, long runs cut) against gpt-tokenizer's own countTokens on the same text, interleaved in one process after a warm-up; " +
      "the ratio is the median of the rounds' (library time / recap's time), so 1x is the library's rate. And the error of the words x 1.3 estimate against the exact counts. " +
      "The vocabulary's load: recap's counter made in a fresh Node (the tables `npm run build` made of gpt-tokenizer's o200k_base file, read after checking the file's SHA-256; the file itself where they do not match), as the daemon makes it once it is ready (requests wait for it meanwhile), against gpt-tokenizer's own encoder imported and used once; medians of 9 of each, interleaved.",
    figures: [
      ...(t.load
        ? [
            figure('o200k_base vocabulary loaded (fresh Node)', t.load.recapMs, 'ms', {
              target: `< ${t.targets.loadMs} ms`,
              met: t.load.recapMs < t.targets.loadMs,
              baseline: `gpt-tokenizer's encoder: ${t.load.libraryMs} ms`,
            }),
          ]
        : []),
      ...Object.entries(t.results).flatMap(([kind, k]) => [
        figure(`${kind}: o200k counting`, k.recapMbPerSecond, 'MB/s', { baseline: `${k.exactTokens.toLocaleString('en')} tokens` }),
        figure(`${kind}: recap / gpt-tokenizer`, k.ratio, 'x', {
          target: `>= ${t.targets.ratio}x`,
          met: atLeast(k.ratio, t.targets.ratio),
          baseline: `countTokens: ${k.libraryMbPerSecond} MB/s, ${k.libraryTokens.toLocaleString('en')} tokens`,
        }),
        figure(`${kind}: words x 1.3 estimate error`, k.estimateErrorPercent, '%', {
          baseline: `${k.wordsEstimate.toLocaleString('en')} estimated vs ${k.exactTokens.toLocaleString('en')} exact`,
        }),
      ]),
    ],
  };
}

function replaySection(p) {
  const t = p.targets;
  const k = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  const largest = 1_000_000;
  const figures = p.rows.flatMap((row) => {
    const atLargest = row.events === largest;
    // The targets are the largest log's; smaller ones are shown for the trend. A rate on a small
    // log is mostly V8 warming up and fixed costs: a whole verify of 10k events takes 70 ms.
    const onlyAt = (target) => ({ target: `(${target} at ${k(largest)})`, met: null });
    const rate = (value, target) => (atLargest ? { target: `>= ${target.toLocaleString('en')}/s`, met: atLeast(value, target) } : onlyAt(`>= ${target.toLocaleString('en')}/s`));
    return [
      figure(`${k(row.events)} events: replay`, row.replayPerSecond, 'events/s', {
        ...rate(row.replayPerSecond, t.replayPerSecond),
        baseline: row.replayColdPerSecond !== undefined ? `first (cold) run: ${row.replayColdPerSecond.toLocaleString('en')}/s` : undefined,
      }),
      ...(row.verifyPerSecond !== undefined
        ? [
            figure(`${k(row.events)} events: verify`, row.verifyPerSecond, 'events/s', {
              ...rate(row.verifyPerSecond, t.verifyPerSecond),
              baseline: `first (cold) run: ${row.verifyColdPerSecond.toLocaleString('en')}/s; replay: ${row.replayPerSecond.toLocaleString('en')}/s`,
            }),
            figure(`${k(row.events)} events: recap verify`, row.verifyCommandPerSecond, 'events/s', {
              ...rate(row.verifyCommandPerSecond, t.verifyPerSecond),
              baseline: `without the CLI's start-up (recap status: ${row.statusMs} ms): ${row.verifyCommandWithoutStartPerSecond.toLocaleString('en')}/s`,
            }),
          ]
        : []),
      figure(`${k(row.events)} events: start-up with a snapshot`, row.startupMs, 'ms', {
        ...(atLargest ? { target: `< ${t.startupMs} ms`, met: below(row.startupMs, t.startupMs) } : onlyAt(`< ${t.startupMs} ms`)),
        baseline: `without a snapshot: ${row.startupWithoutSnapshotMs?.toLocaleString('en')} ms`,
      }),
      figure(`${k(row.events)} events: RSS at ready`, row.startupRssMb, 'MB', {
        ...(atLargest ? { target: `< ${t.startupRssMb} MB`, met: below(row.startupRssMb, t.startupRssMb) } : onlyAt(`< ${t.startupRssMb} MB`)),
        baseline: `2 s later (token encoding loaded): ${row.settledRssMb} MB`,
      }),
      figure(`${k(row.events)} events: export`, row.exportPerSecond, 'events/s', {
        ...(atLargest && t.exportPerSecond ? { target: `>= ${t.exportPerSecond.toLocaleString('en')}/s`, met: atLeast(row.exportPerSecond, t.exportPerSecond) } : {}),
        baseline:
          row.exportWithoutStartPerSecond !== undefined
            ? `without the CLI's start-up (recap status: ${row.statusMs} ms): ${row.exportWithoutStartPerSecond.toLocaleString('en')}/s; ${row.exportMegabytes} MB`
            : undefined,
      }),
      figure(`${k(row.events)} events: replay --at, slowest moment`, row.replayAtMaxMs, 'ms', {
        ...(atLargest ? { target: `< ${t.replayAtMs} ms`, met: below(row.replayAtMaxMs, t.replayAtMs) } : onlyAt(`< ${t.replayAtMs} ms`)),
        baseline:
          `full replay: ${row.replayAtFullMs?.toLocaleString('en')} ms; median of ${row.replayAtMoments} moments ${row.replayAtMedianMs} ms; ` +
          `the daemon's share (in-process): max ${row.projectionAtMaxMs} ms, median ${row.projectionAtMedianMs} ms, full replay ${row.projectionAtFullMs?.toLocaleString('en')} ms; ${row.snapshotsKept} snapshots kept`,
      }),
      ...(row.loaded
        ? [
            figure(`${k(row.events)} events: RSS after ${row.loaded.seconds} s of load`, row.loaded.endMb, 'MB', {
              target: `< ${t.loadedRssMb} MB`,
              met: below(row.loaded.endMb, t.loadedRssMb) && below(row.loaded.maxMb, t.loadedRssMb),
              baseline:
                `at the start of the load: ${row.loaded.startMb} MB; max ${row.loaded.maxMb} MB; ${row.loaded.requestsPerSecond.toLocaleString('en')} requests/s, ${row.loaded.summaries} summaries; ` +
                `another daemon after the export, verify and replay --at commands: ${row.loaded.afterCommandsRssMb} MB`,
            }),
            figure(`${k(row.events)} events: RSS growth over the load's second half`, row.loaded.secondHalfGrowthMb, 'MB', {
              target: `< ${t.loadedGrowthMb} MB (flat)`,
              met: below(row.loaded.secondHalfGrowthMb, t.loadedGrowthMb),
              baseline: `sampled every ${row.loaded.sampleMs / 1000} s`,
            }),
          ]
        : []),
    ];
  });
  if (!p.rows.some((row) => row.events === largest)) {
    figures.push(figure(`${k(largest)} events: start-up and RSS`, null, '', { target: `< ${t.startupMs} ms, < ${t.startupRssMb} MB`, baseline: 'not measured in a quick run' }));
  }
  return {
    title: 'Replay and start-up',
    method:
      `Event logs of ${p.rows.map((row) => k(row.events)).join(', ')} events made by the real decider (50 jobs: prompts, checks, denials, summaries). ` +
      'Replay: the projection rebuilt from LevelDB in one process. Start-up: from spawning `recap daemon` to its "ready" line, with the latest snapshot, and without one as the baseline. ' +
      "Replay and verify (verifyLog, what `recap verify` runs in the daemon: hashes, links, a full replay, the comparison with the live projection): in one process, the store opened before the clock starts, the median of 3 runs after a first, cold one (shown beside: V8 has not optimized the decoder and the projection yet, which is most of a small log's time). " +
      'RSS from /proc at "ready". `recap export` of the whole log to a file and `recap verify`: the command\'s wall time, CLI start-up and connection included (the median of 3 to 5, interleaved); beside it the rate without the time of a `recap status` on the same daemon. ' +
      `RSS under load: on the largest log, a daemon started for it (with the snapshot, 2 s to settle), ${p.rows.find((row) => row.loaded)?.loaded.seconds ?? '—'} s of 8 clients each sending every 20 ms a check, a tool output and a prompt (exact token counts), and the summary when a gate trips; RSS sampled from /proc throughout. ` +
      'replay --at: `recap replay --at` (CLI start-up included) through the daemon at the moments farthest from a snapshot (just before a few kept ones, the last event, one by time), from the nearest snapshot; ' +
      'the baseline is the same command at the last event on the same log without snapshots (a full replay). The in-process figures are the projection at the same moments, without the CLI.',
    figures,
  };
}

function auditPageSection(p) {
  const t = p.targets;
  const row = p.rows[0];
  const k = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  const rendered = row.render?.medianMs;
  return {
    title: 'Audit page (recap ui)',
    method:
      `A log of ${k(row.events)} events of one job over a month, made by the real decider (prompts, trips, denials, summaries; snapshots every 10,000 events). ` +
      "`recap ui`'s first answer, which indexes the whole log; then each /api request over HTTP with the page's cookie, the median of 5 after one to warm up: " +
      'the job page (the meter downsampled to 1600 pixels, every trip and summary), one hour zoomed, the jobs table, the slider (the state at the middle of the month, `recap replay --at`) and the hover (a minute of events). ' +
      "Render: the job page loaded in headless Chromium (Debian's, through playwright-core) until its chart is drawn, median of 5. RSS of the daemon from its stats op.",
    figures: [
      figure(`${k(row.events)} events: job page data`, row.jobPage?.medianMs, 'ms', {
        target: `< ${t.jobPageMs} ms`,
        met: below(row.jobPage?.medianMs, t.jobPageMs),
        baseline: `${row.jobPage?.kb} KB; at the widest the page may ask (8000 px): ${row.jobPageWidest?.medianMs} ms, ${row.jobPageWidest?.kb} KB`,
      }),
      figure(`${k(row.events)} events: job page rendered in Chromium`, rendered, 'ms', {
        target: `< ${t.renderMs} ms`,
        met: rendered === undefined ? null : below(rendered, t.renderMs),
        baseline: row.render?.skipped ?? row.render?.error ?? `slowest of 5: ${row.render?.maxMs} ms`,
      }),
      figure('one hour zoomed', row.zoomHour?.medianMs, 'ms', { baseline: `${row.zoomHour?.kb} KB` }),
      figure('state at a moment (slider)', row.at?.medianMs, 'ms', {
        target: `< ${t.atMs} ms`,
        met: below(row.at?.medianMs, t.atMs),
        baseline: 'recap replay --at answers the same',
      }),
      figure('events around a moment (hover)', row.moments?.medianMs, 'ms', {}),
      figure('jobs table', row.jobs?.medianMs, 'ms', {}),
      figure('recap ui, first answer (indexes the log)', row.indexMs, 'ms', { baseline: `daemon RSS ${row.rssBeforeMb} MB before, ${row.rssAfterMb} MB after` }),
    ],
  };
}

function codeManifestSection(c) {
  return {
    title: "recap's code checked at daemon start",
    method:
      `The check of recap's installed code (${c.files.toLocaleString('en')} files: bin/, dist/, package.json and the production dependencies) against the manifest \`recap install\` wrote, ` +
      'as bin/recap.js runs it before it loads the daemon: once, in a fresh Node each time (lstat of every recorded folder and hashed file, nothing read), the median of ' +
      `${c.runs}. And \`recap daemon\` from spawn to "ready" on an empty log, with a manifest and without one (no check), interleaved, medians. ` +
      '`recap install` writing the manifest hashes every file.',
    figures: [
      figure('code check at daemon start', c.check.medianMs, 'ms', {
        target: `< ${c.targets.checkMs} ms`,
        met: below(c.check.medianMs, c.targets.checkMs),
        baseline: `p95 ${c.check.p95Ms} ms; CPU time ${c.check.cpuMedianMs} ms`,
      }),
      figure('recap daemon to ready, with the manifest', c.start.withManifestMs, 'ms', {
        baseline: `without one (no check): ${c.start.withoutMs} ms; added: ${c.start.addedMs} ms`,
      }),
      figure('recap install: writing the manifest', c.recordMs, 'ms', {}),
    ],
  };
}

function memorySection(m) {
  return {
    title: 'Memory hand-over',
    method:
      `A job of ${m.summaries.toLocaleString('en')} accepted summaries, each naming files (two read ranges and a ref; one range changed since the newest). ` +
      "The memory is the newest summaries whole, the newest summary's files read from the disk, hashed and compared, and an index of the older entries. " +
      `Timed from the request's write to its answer over the socket, medians of ${m.runs}: \`context\` as \`recap context\` asks, and a Claude Code SessionStart through the hook op (fit to 10,000 characters).`,
    figures: [
      figure('recap context', m.context.medianMs, 'ms', {
        target: `< ${m.targets.handOverMs} ms`,
        met: below(m.context.medianMs, m.targets.handOverMs),
        baseline: `p95 ${m.context.p95Ms} ms; ${m.memoryChars} characters`,
      }),
      figure('Claude Code SessionStart', m.sessionStart.medianMs, 'ms', {
        target: `< ${m.targets.handOverMs} ms`,
        met: below(m.sessionStart.medianMs, m.targets.handOverMs),
        baseline: `p95 ${m.sessionStart.p95Ms} ms`,
      }),
    ],
  };
}

function searchSection(r) {
  return {
    title: 'Search',
    method:
      `A job of ${r.summaries.toLocaleString('en')} accepted summaries (a gist and three sections each). ` +
      `Timed from the request's write to its answer over the socket, ${r.runs} queries (one word, a five-letter prefix, two words), limit 10, snippets read from the log. ` +
      "The index's memory is the index alone, its heap and the ArrayBuffers it holds, built from the same summaries in a process of its own and measured after a full garbage collection (the target is this one's); " +
      "the daemon's heap and ArrayBuffers and its RSS, each settled by a full collection, after the first search less before it, are beside it.",
    figures: [
      figure('search, p95', r.search.p95Ms, 'ms', {
        target: `< ${r.targets.searchP95Ms} ms`,
        met: below(r.search.p95Ms, r.targets.searchP95Ms),
        baseline: `median ${r.search.medianMs} ms; ${r.search.meanHits} hits on average`,
      }),
      figure('search index alone, heap and ArrayBuffers', r.indexMb, 'MB', {
        target: `< ${r.targets.indexMb} MB`,
        met: below(r.indexMb, r.targets.indexMb),
        baseline: `daemon, settled: heap and ArrayBuffers +${r.daemon?.heapMb} MB, RSS +${r.daemon?.rssMb} MB; built by the first search in ${r.firstSearchMs} ms`,
      }),
    ],
  };
}

function syncSection(r) {
  return {
    title: 'Sync between machines',
    method:
      `\`recap sync\` of a job with ${r.summaries.toLocaleString('en')} accepted summaries between two daemons with their own data folders, through a bare repository on disk as the remote (recap's and git's work, no network), ` +
      "timed from the request's write to its answer: machine A's first push and machine B's first fetch, check and import of every entry (cold), the same after one more summary (incremental), and a sync with nothing new. " +
      'SYNC is off by default and no hook but a session start waits for it, so the hook figures above are unchanged by it.',
    figures: [
      figure('cold push', r.coldPushMs, 'ms', { target: `< ${r.targets.coldMs} ms`, met: below(r.coldPushMs, r.targets.coldMs), baseline: `${r.summaries} summaries` }),
      figure('cold fetch and import', r.coldFetchMs, 'ms', {
        target: `< ${r.targets.coldMs} ms`,
        met: below(r.coldFetchMs, r.targets.coldMs),
        baseline: `cold push: ${r.coldPushMs} ms`,
      }),
      figure('incremental push', r.incrementalPushMs, 'ms', {
        target: `< ${r.targets.incrementalMs} ms`,
        met: below(r.incrementalPushMs, r.targets.incrementalMs),
        baseline: `cold: ${r.coldPushMs} ms`,
      }),
      figure('incremental fetch and import', r.incrementalFetchMs, 'ms', {
        target: `< ${r.targets.incrementalMs} ms`,
        met: below(r.incrementalFetchMs, r.targets.incrementalMs),
        baseline: `cold: ${r.coldFetchMs} ms; ${r.incrementalImported} imported`,
      }),
      figure('nothing new, push and fetch', r.unchangedMs, 'ms', { baseline: `incremental push: ${r.incrementalPushMs} ms` }),
    ],
  };
}

function secretsSection(x) {
  return {
    title: 'Secrets replaced before a text is stored',
    method:
      "secretlint's recommended rules find the secrets in a prompt (a GitHub token and an AWS access key among prose), then the pure replacement puts a marker in their place, " +
      `as the daemon does for every prompt, Q&A and summary (never for a tool call); in one process after a warm-up, medians of ${x.prompt.runs} and ${x.megabyte.runs} runs.`,
    figures: [
      figure('2 KB prompt', x.prompt.medianMs, 'ms', {
        target: `< ${x.targets.promptMs} ms`,
        met: below(x.prompt.medianMs, x.targets.promptMs),
        baseline: `p95 ${x.prompt.p95Ms} ms`,
      }),
      figure('1 MB prompt', x.megabyte.medianMs, 'ms', {
        target: `< ${x.targets.megabyteMs} ms`,
        met: below(x.megabyte.medianMs, x.targets.megabyteMs),
        baseline: `p95 ${x.megabyte.p95Ms} ms`,
      }),
    ],
  };
}

/**
 * How each cost grows with the log: one row per measurement, a column per log size, and the
 * target at the largest (10M events). As a grid: `figures` holds the targets' rows alone, for
 * the count of targets met.
 */
function scaleSection(x) {
  const t = x.targets;
  const SIZES = [10_000, 100_000, 1_000_000, 10_000_000];
  const k = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  const at = (n) => x.rows.find((row) => row.events === n);
  const largest = at(SIZES.at(-1));
  const oneMillion = at(1_000_000);
  const checkLimit = oneMillion && Math.round(oneMillion.check64.p99Ms * t.checkP99GrowthMax * 100) / 100;
  const measures = [
    { name: 'log built in', unit: 's', of: (r) => r.build.seconds },
    { name: 'log on disk', unit: 'MB', of: (r) => Math.round(r.build.bytes / 1e6) },
    { name: 'start-up with a snapshot', unit: 'ms', of: (r) => r.startupMs, target: `< ${t.startupMs} ms`, met: (v) => v < t.startupMs },
    { name: 'RSS at ready', unit: 'MB', of: (r) => r.startupRssMb, target: `< ${t.startupRssMb} MB`, met: (v) => v < t.startupRssMb },
    { name: 'RSS 2 s after ready (token encoding loaded)', unit: 'MB', of: (r) => r.settledRssMb },
    { name: '`recap status` (CLI, wall time)', unit: 'ms', of: (r) => r.statusCliMs },
    { name: 'status op, p99', unit: 'ms', of: (r) => r.statusOp.p99Ms },
    { name: 'check, 1 client, p99', unit: 'ms', of: (r) => r.check1.p99Ms },
    {
      name: 'check, 64 clients x 1 in flight, p99',
      unit: 'ms',
      of: (r) => r.check64.p99Ms,
      target: checkLimit ? `<= ${checkLimit} ms (1M's x ${t.checkP99GrowthMax})` : `unchanged from 1M (x ${t.checkP99GrowthMax})`,
      met: (v) => (checkLimit ? v <= checkLimit : null),
    },
    { name: 'hook (launcher, Claude Code PreToolUse)', unit: 'ms', of: (r) => r.hookMs },
    { name: '`recap replay --at`, slowest moment', unit: 'ms', of: (r) => r.replayAt.maxMs, target: `< ${t.replayAtMs} ms`, met: (v) => v < t.replayAtMs },
    { name: '`recap replay --at`, median of the moments', unit: 'ms', of: (r) => r.replayAt.medianMs },
    { name: 'search, first (builds the index)', unit: 'ms', of: (r) => r.search.firstMs },
    { name: 'search, median after it', unit: 'ms', of: (r) => r.search.medianMs },
    { name: '`recap verify`', unit: 'events/s', of: (r) => r.verifyPerSecond },
    { name: "`recap verify`, without the CLI's start-up (a `recap status`)", unit: 'events/s', of: (r) => r.verifyWithoutStartPerSecond },
    { name: 'first `recap ui` (indexes the log)', unit: 'ms', of: (r) => r.ui.firstMs },
    { name: 'RSS after the first `recap ui`', unit: 'MB', of: (r) => r.ui.rssAfterMb },
    { name: `RSS under ${x.loadSeconds} s of load, max`, unit: 'MB', of: (r) => r.loaded.maxMb },
    { name: 'RSS after status, checks, hooks, replay --at, search, verify', unit: 'MB', of: (r) => r.afterCommandsRssMb },
  ];
  const rows = measures.map((m) => {
    const value = largest ? m.of(largest) : undefined;
    return {
      name: m.name,
      unit: m.unit,
      values: SIZES.map((n) => (at(n) ? m.of(at(n)) : null)),
      target: m.target ?? null,
      met: m.target && value !== undefined ? m.met(value) : null,
    };
  });
  const built = x.rows.map((r) => `${k(r.events)} in ${r.build.seconds} s`).join(', ');
  return {
    title: 'How costs grow',
    method:
      'Logs of 10k, 100k, 1M and 10M events, built for the benchmark without a daemon (bench/lib/scaleLog.mjs) and kept in a cache folder. ' +
      "Each is what recap writes: recap's own decider decides every command against a real projection (sessions bound, prompts, tool outputs, the gate tripping at the default 500-token threshold, a denied call, an accepted summary every few hundred events; 20 jobs taking turns), " +
      "and the events go to LevelDB in large batches through the store's own encoding, with a snapshot every 10,000 events encoded and thinned as the daemon's are; `recap verify` passes on each. " +
      'Writing batches directly skips only the socket, the hooks and one fsync per command, none of which leaves a trace in the log: the daemon reads the same keys, values, hash chain and snapshots it would have written itself. ' +
      "What a daemon writes beside its events is added once to each cached log by the daemon's own code (bench/lib/scaleLog.mjs): the audit page's chunks (a window of 10,000 events each, which the daemon writes as its log passes each window's end) and the snapshots' heads. " +
      `Built: ${built} (the first time; later runs take them from the cache). ` +
      'The newest snapshot is 10,000 events before the end (at 10k, at the end), so start-up replays a full window after it. Each part on its own daemon where it must find one fresh: ' +
      `start-up from spawn to "ready", the median of ${x.rows[0]?.startupRuns.length ?? 3}, RSS from /proc; status, checks, a hook, replay --at, search and verify on the last of them; ` +
      "checks from this process's socket client to a job whose gate is open, the daemon pinned to one CPU and the client to the other (taskset); " +
      'replay --at at the moments farthest from a snapshot (as bench/replay.mjs); verify once at 1M and more (3 times below), its wall time with the CLI; ' +
      `the first \`recap ui\` on a fresh daemon (RSS from its stats op); RSS under ${x.loadSeconds} s of the load bench/replay.mjs sends, on another. ` +
      'The columns were measured in one run unless their dates differ: ' +
      x.rows.map((r) => `${k(r.events)} ${r.date.slice(0, 16).replace('T', ' ')}, load average ${r.loadavg.map((l) => l.toFixed(1)).join(' ')}`).join('; ') +
      '.',
    grid: { columns: SIZES.map(k), rows },
    figures: rows.filter((r) => r.target).map((r) => figure(`${r.name}, 10M events`, r.values.at(-1), r.unit, { target: r.target, met: r.met ?? undefined })),
  };
}

const started = Date.now();
const load = { start: loadavg() };
const resultsFile = join(root, 'bench', 'results.json');
const previous = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
const raw = {};
const errors = {};
if (scale) {
  // The other scripts' figures, and the run they came from, stay as they were.
  Object.assign(raw, previous?.raw ?? {});
  Object.assign(errors, previous?.errors ?? {});
  delete errors.scale;
  const outcome = await runScript(SCALE);
  if (outcome.error) errors.scale = outcome.error;
  else raw.scale = { seconds: outcome.seconds, ...mergeScale(previous?.raw?.scale, outcome.value) };
} else {
  for (const [name, script] of Object.entries(SCRIPTS)) {
    const outcome = await runScript(script);
    if (outcome.error) errors[name] = outcome.error;
    else raw[name] = { seconds: outcome.seconds, ...outcome.value };
  }
  if (previous?.raw?.scale) raw.scale = previous.raw.scale;
}
load.end = loadavg();

/** The new scale rows, and those of the run before at the sizes not measured now. */
function mergeScale(before, now) {
  const measured = new Set(now.rows.map((row) => row.events));
  const rows = [...(before?.rows ?? []).filter((row) => !measured.has(row.events)), ...now.rows].sort((a, b) => a.events - b.events);
  return { ...now, rows };
}

const sections = [];
const failed = (title, name) => ({ title, method: '', figures: [], error: errors[name] });
sections.push(raw.hook ? hookSection(raw.hook) : failed('Hook process cost', 'hook'));
sections.push(...(raw.service ? serviceSections(raw.service) : [failed('Checks, records, HTTP and tokens', 'service')]));
sections.push(raw.tokens ? tokensSection(raw.tokens) : failed('Token counting', 'tokens'));
sections.push(raw.replay ? replaySection(raw.replay) : failed('Replay and start-up', 'replay'));
sections.push(raw.auditPage ? auditPageSection(raw.auditPage) : failed('Audit page (recap ui)', 'auditPage'));
sections.push(raw.codeManifest ? codeManifestSection(raw.codeManifest) : failed("recap's code checked at daemon start", 'codeManifest'));
sections.push(raw.memory ? memorySection(raw.memory) : failed('Memory hand-over', 'memory'));
sections.push(raw.search ? searchSection(raw.search) : failed('Search', 'search'));
sections.push(raw.secrets ? secretsSection(raw.secrets) : failed('Secrets replaced before a text is stored', 'secrets'));
sections.push(raw.sync ? syncSection(raw.sync) : failed('Sync between machines', 'sync'));
if (raw.scale || errors.scale) sections.push(raw.scale ? scaleSection(raw.scale) : failed('How costs grow', 'scale'));

const thisRun = { date: new Date(started).toISOString(), seconds: Math.round((Date.now() - started) / 1000), machine: { ...machine(), loadavg: load } };
const results = {
  // A --scale run says when it ran apart; the rest is the run the other sections came from.
  ...(scale && previous
    ? { date: previous.date, mode: previous.mode, seconds: previous.seconds, machine: previous.machine }
    : { date: thisRun.date, mode: quick ? 'quick' : 'full', seconds: thisRun.seconds, machine: thisRun.machine }),
  ...(scale ? { scaleRun: { ...thisRun, mode: quick ? 'quick' : 'full' } } : previous?.scaleRun ? { scaleRun: previous.scaleRun } : {}),
  sections,
  ...(Object.keys(errors).length > 0 ? { errors } : {}),
  raw,
};
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(root, 'BENCHMARKS.md'), markdown(results));

// A --scale run tells of its own targets; the others' are the run before's.
const figures = (scale ? sections.filter((s) => s.title === 'How costs grow') : sections).flatMap((s) => s.figures).filter((f) => f.met !== null);
const missed = figures.filter((f) => f.met === false);
console.log(
  `${scale ? `--scale run in ${thisRun.seconds} s` : `${results.mode} run in ${results.seconds} s`}: ${figures.filter((f) => f.met).length} of ${figures.length} targets met` +
    `${missed.length > 0 ? `; missed: ${missed.map((f) => f.name).join(', ')}` : ''}. Wrote BENCHMARKS.md and bench/results.json.`,
);
// Only this run's failures count: a --scale run keeps the others' from the run before.
const failures = scale ? (errors.scale ? [errors.scale] : []) : Object.values(errors);
for (const error of failures) console.error(error);
process.exitCode = failures.length > 0 ? 1 : 0;

function markdown(r) {
  const m = r.machine;
  // 1.14x, -21%, 16,058/s, but 0.2 ms and 81,078 events/s.
  const unit = (u) => (!u ? '' : /^(x|%|\/)/.test(u) ? u : ` ${u}`);
  const fmt = (f) => (f.value == null ? '—' : `${f.value.toLocaleString('en')}${unit(f.unit)}`);
  const met = (f) => (f.met === true ? 'yes' : f.met === false ? '**no**' : f.target && f.value == null ? 'not measured' : '—');
  const lines = [
    '# recap benchmarks',
    '',
    `Written by \`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\` on ${r.date.slice(0, 10)}: a ${r.mode} run that took ${r.seconds} s` +
      (r.scaleRun ? `; "How costs grow" by \`npm run bench -- --scale\` on ${r.scaleRun.date.slice(0, 10)} (${r.scaleRun.seconds} s). ` : '. ') +
      "Run it again rather than editing this file; the same figures, with the scripts' raw output, are in `bench/results.json`.",
    '',
    '## How to run',
    '',
    '```sh',
    'npm run build',
    'npm run bench              # everything, with logs up to 1M events: a few minutes',
    'npm run bench -- --quick   # a smoke run in under a minute: fewer hook runs, shorter runs, logs of 10k and 100k events',
    'npm run bench -- --scale   # how costs grow: logs of 10k, 100k, 1M and 10M events (the 10M log takes a while to build the first time)',
    '```',
    '',
    '`--scale` runs bench/scale.mjs alone (`--sizes=10000,100000` picks the logs) and writes its table, "How costs grow", keeping every other section from the run before; ' +
      'a run without it keeps the scale table. ' +
      "Its logs are built without a daemon, in LevelDB batches written directly through the store's own encoding, by recap's own decider: the same events, hash chain and snapshots the daemon would write, " +
      "so the figures measured on them are the daemon's (it only skips the socket and an fsync per command, which leave no trace in the log). " +
      "They are cached in `$RECAP_BENCH_CACHE` (default: a `recap-scale-*` folder in the temporary folder, named after the events' schema), so a rerun does not build them again.",
    '',
    'Each part also runs alone and prints a readable summary: `node bench/hook.mjs [--runs N]`, `node bench/service.mjs [--quick]`, ' +
      '`node bench/replay.mjs [--quick]`, `node bench/auditPage.mjs [--quick]`. Every script starts its own daemon on temporary folders and uses no network beyond loopback. ' +
      'The benchmark is not a test: a missed target is reported here, and only a script that fails makes the run fail.',
    '',
    '## Machine',
    '',
    '| | |',
    '| --- | --- |',
    `| CPU | ${m.cpu}, ${m.cores} cores |`,
    `| memory | ${m.memoryGb} GB |`,
    `| OS | ${m.os} |`,
    `| Node | ${m.node} |`,
    `| load average (1, 5, 15 min) | at the start ${m.loadavg.start.map((l) => l.toFixed(2)).join(', ')}; at the end ${m.loadavg.end.map((l) => l.toFixed(2)).join(', ')} |`,
    '',
    "Other work on the machine shows in the figures, the hook's and the latency percentiles most: the load average says how busy it was.",
    '',
    '## Results',
  ];
  for (const s of r.sections) {
    lines.push('', `### ${s.title}`, '');
    if (s.error) {
      lines.push(`Not measured: ${s.error.split('\n')[0]}`);
      continue;
    }
    if (s.grid) {
      const cell = (v, u) => (v == null ? '—' : `${v.toLocaleString('en')}${unit(u)}`);
      const metCell = (r) => (r.met === true ? 'yes' : r.met === false ? '**no**' : r.target ? 'not measured' : '—');
      lines.push(
        s.method,
        '',
        `| measurement | ${s.grid.columns.join(' | ')} | target at ${s.grid.columns.at(-1)} | met |`,
        `| --- |${' --- |'.repeat(s.grid.columns.length + 2)}`,
      );
      for (const row of s.grid.rows) lines.push(`| ${row.name} | ${row.values.map((v) => cell(v, row.unit)).join(' | ')} | ${row.target ?? '—'} | ${metCell(row)} |`);
      continue;
    }
    lines.push(s.method, '', '| figure | value | target | baseline | met |', '| --- | --- | --- | --- | --- |');
    for (const f of s.figures) lines.push(`| ${f.name} | ${fmt(f)} | ${f.target ?? '—'} | ${f.baseline ?? '—'} | ${met(f)} |`);
  }
  lines.push('');
  return lines.join('\n');
}
