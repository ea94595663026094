// The benchmark scripts run against recap as built: each, in its smallest form, prints one
// JSON object with its figures. Their values are not judged here (timing is the benchmark's
// business, `npm run bench`); a script that no longer runs is.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs one bench script and gives the JSON its last line holds. */
function bench(script: string, args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [join(ROOT, 'bench', script), ...args, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('the benchmark scripts', { timeout: 150_000 }, () => {
  it('replay: builds a decided log with accepted summaries and measures replay, verify and export on it', () => {
    const figures = bench('replay.mjs', ['--quick', '--sizes=2000']);
    const [row] = figures.rows as Record<string, unknown>[];
    expect(row).toMatchObject({ events: 2000 });
    for (const figure of ['replayPerSecond', 'verifyPerSecond', 'exportPerSecond', 'startupMs']) expect(row![figure], figure).toBeGreaterThan(0);
    expect((row!.loaded as { summaries: number }).summaries).toBeGreaterThan(0);
  });

  it('hook: times the launcher and recap-hook for every agent', () => {
    const figures = bench('hook.mjs', ['--runs', '3']);
    expect(Object.keys(figures.agents as object).sort()).toEqual(['claude', 'codex', 'copilot', 'gemini', 'qwen']);
    expect((figures.medianMs as { launcher: number }).launcher).toBeGreaterThan(0);
  });

  it("tokens: counts recap's documents, code and JSON as the tokenizer library does", () => {
    const { results } = bench('tokens.mjs', ['--quick']) as { results: Record<string, { exactTokens: number; libraryTokens: number }> };
    for (const sample of ['prose', 'code', 'json']) {
      expect(results[sample]!.exactTokens, sample).toBeGreaterThan(1000);
      expect(results[sample]!.exactTokens, sample).toBe(results[sample]!.libraryTokens);
    }
  });

  it('memory: hands over the memory of a job whose summaries name files', () => {
    const figures = bench('memory.mjs', ['--quick']) as { summaries: number; memoryChars: number; context: { medianMs: number }; sessionStart: { medianMs: number } };
    expect(figures.summaries).toBe(100);
    expect(figures.memoryChars).toBeGreaterThan(0);
    expect(figures.context.medianMs).toBeGreaterThan(0);
    expect(figures.sessionStart.medianMs).toBeGreaterThan(0);
  });

  it('search: searches a job of summaries through the daemon and measures its index', () => {
    const figures = bench('search.mjs', ['--quick']) as { summaries: number; firstHits: number; indexMb: number; search: { medianMs: number; p95Ms: number } };
    expect(figures.summaries).toBe(200);
    expect(figures.firstHits).toBeGreaterThan(0);
    expect(figures.search.medianMs).toBeGreaterThan(0);
    expect(figures.search.p95Ms).toBeGreaterThanOrEqual(figures.search.medianMs);
    expect(typeof figures.indexMb).toBe('number');
  });

  it('secrets: finds and replaces the secrets of a 2 KB and a 1 MB prompt', () => {
    const figures = bench('secrets.mjs', ['--quick']) as Record<'prompt' | 'megabyte', { secrets: number; medianMs: number }>;
    for (const size of ['prompt', 'megabyte'] as const) {
      expect(figures[size].secrets, size).toBe(2);
      expect(figures[size].medianMs, size).toBeGreaterThan(0);
    }
  });
});
