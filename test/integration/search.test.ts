// `recap search` and `recap timeline` on a real daemon: search finds an older summary by a
// word of one of its sections and ranks the summary that is about the words first; it
// filters by job, topic, time and count, follows summaries accepted after its index was
// built, and works again after a restart. timeline shows the entries around one or a moment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, RawClient, runCli, sandboxWithDaemon, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const JOB = 'searched';
const OTHER = 'other-job';

type Hit = { job: string; seq: number; time: number; section: string; snippet: string; terms: string[]; gist: string; topic?: string };
type Line = { job: string; seq: number; time: number; gist: string };

/** A good summary of round `round` with `extra` added to its section `section` (0-based). */
function summaryWith(round: number, section: number, extra: string, gist?: string): string {
  const parts = goodSummary(undefined, round).split('\n\n## ');
  parts[section + 1] = `${parts[section + 1]} ${extra}`;
  const text = parts.join('\n\n## ');
  return gist === undefined ? text : text.replace(/^Gist: .*$/m, `Gist: ${gist}`);
}

describe('recap search and timeline', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let client: RawClient;
  let id = 0;
  const op = async <T>(request: Record<string, unknown>): Promise<T> => {
    const response = await client.request({ id: (id += 1), ...request });
    expect(response.error, JSON.stringify(response.error)).toBeUndefined();
    return response.result as T;
  };
  const submit = async (job: string, text: string, topic?: string): Promise<number> => {
    await op({ op: 'record', job, kind: 'prompt', text: prose(3) });
    const answer = await op<{ accepted: boolean; problems?: string[] }>({ op: 'submit', job, text, ...(topic ? { topic } : {}) });
    expect(answer.accepted, JSON.stringify(answer.problems)).toBe(true);
    return (await op<{ entries: { seq: number }[] }>({ op: 'chain', job })).entries.at(-1)!.seq;
  };
  const search = (query: string, more: Record<string, unknown> = {}) => op<{ hits: Hit[]; notice?: string }>({ op: 'search', job: JOB, query, ...more });
  const seqs: number[] = [];

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    client = await RawClient.connect(box.socket);
    // The oldest names a rare word once, in its design section.
    seqs.push(await submit(JOB, summaryWith(0, 2, 'The kestrel codename marks the reader rewrite in the tracker.')));
    // Refunds in passing, in a long section of one; the subject of another.
    seqs.push(await submit(JOB, summaryWith(1, 4, 'A refund report was mentioned once, and left for later.')));
    seqs.push(
      await submit(
        JOB,
        summaryWith(
          2,
          1,
          'Refund decisions: a refund is issued to the original card; partial refund amounts are rounded down; the refund export runs nightly.',
          'refund handling: how a refund is issued and exported',
        ),
      ),
    );
    seqs.push(await submit(JOB, summaryWith(3, 0, 'The billing topic keeps its own invoices chain.'), 'billing'));
    seqs.push(await submit(OTHER, summaryWith(4, 3, 'Another job also speaks of a kestrel, its logging library.')));
  });
  afterAll(async () => {
    client.close();
    await closeSandbox(box, daemon);
  });

  it('finds an older summary by a word of one of its sections, naming that section and showing the word in its snippet', async () => {
    const { hits } = await search('kestrel');
    expect(hits.map((h) => h.seq)).toEqual([seqs[0]]);
    expect(hits[0]).toMatchObject({ job: JOB, section: 'Design Choices', terms: ['kestrel'] });
    expect(hits[0]!.snippet).toContain('The kestrel codename marks the reader rewrite');
  });

  it('ranks the summary that is about the words before one that mentions them in passing', async () => {
    const { hits } = await search('refund');
    expect(hits.map((h) => h.seq)).toEqual([seqs[2], seqs[1]]);
    expect(hits[0]).toMatchObject({ section: 'Questions & Decisions', gist: 'refund handling: how a refund is issued and exported' });
    expect(hits[0]!.terms).toEqual(expect.arrayContaining(['Refund', 'refund']));
    expect(hits[1]).toMatchObject({ section: 'Current State', terms: ['refund'] });
  });

  it('gives with --json the hits with stable fields', async () => {
    const result = await runCli(box, ['search', 'kestrel', '--job', JOB, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { hits } = JSON.parse(result.stdout) as { hits: Record<string, unknown>[] };
    expect(Object.keys(hits[0]!).sort()).toEqual(['gist', 'job', 'level', 'score', 'section', 'seq', 'snippet', 'terms', 'time', 'tokens']);
  });

  it('prints one block per hit, with the way to read it whole', async () => {
    const result = await runCli(box, ['search', 'kestrel', '--job', JOB], { env: { TZ: 'UTC' } });
    expect(result.stdout.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^#${seqs[0]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\+00:00  Design Choices$`)),
      '  round 0 of the config parser work, where its error reports stand and what is next',
      expect.stringContaining('The kestrel codename marks the reader rewrite'),
      `  recap show ${seqs[0]}`,
      '',
    ]);
  });

  it('searches every job with --all-jobs', async () => {
    const { hits } = await op<{ hits: Hit[] }>({ op: 'search', query: 'kestrel', allJobs: true });
    expect(hits.map((h) => `${h.job} #${h.seq}`).sort()).toEqual([`${OTHER} #${seqs[4]}`, `${JOB} #${seqs[0]}`]);
  });

  it('filters by topic, by time and by count', async () => {
    expect((await search('invoices', { topic: 'billing' })).hits.map((h) => h.seq)).toEqual([seqs[3]]);
    expect((await search('refund', { topic: 'billing' })).hits).toEqual([]);
    const { entries } = await op<{ entries: Line[] }>({ op: 'timeline', job: JOB, after: 0, before: 10 });
    const time = (seq: number | undefined) => entries.find((e) => e.seq === seq)!.time;
    const since = time(seqs[2]);
    // Two summaries in one millisecond are both since it.
    const expected = [seqs[2], seqs[1]].filter((seq) => time(seq) >= since);
    expect((await search('refund', { since })).hits.map((h) => h.seq)).toEqual(expected);
    expect((await search('refund', { since: since + 1 })).hits).toEqual([]);
    expect((await search('refund', { limit: 1 })).hits.map((h) => h.seq)).toEqual([seqs[2]]);
  });

  it('finds a summary accepted after the index was built', async () => {
    expect((await search('heron')).hits).toEqual([]);
    const seq = await submit(JOB, summaryWith(5, 2, 'The heron migration moved every job to the new schema.'));
    expect((await search('heron')).hits.map((h) => h.seq)).toEqual([seq]);
  });

  it('answers for a job that has no events with no hits and a notice', async () => {
    const answer = await op<{ hits: Hit[]; notice?: string }>({ op: 'search', job: 'serched', query: 'kestrel' });
    expect(answer.hits).toEqual([]);
    expect(answer.notice).toMatch(/^job "serched" has no events; jobs with near names: searched/);
  });

  it('shows the entries around summary N, oldest first', async () => {
    const { entries } = await op<{ entries: Line[] }>({ op: 'timeline', job: JOB, seq: seqs[1], before: 1, after: 1 });
    expect(entries.map((e) => e.seq)).toEqual([seqs[0], seqs[1], seqs[2]]);
    expect(Object.keys(entries[0]!).sort()).toEqual(['gist', 'job', 'level', 'seq', 'time', 'tokens']);
    const refused = await client.request({ id: 'x', op: 'timeline', job: JOB, seq: seqs[1]! + 1 });
    expect(refused.error).toMatchObject({ code: 'not_summary', message: expect.stringContaining(`(the nearest: #${seqs[1]}, #${seqs[2]})`) });
  });

  it('shows the entries around a moment, and the newest without one', async () => {
    const all = (await op<{ entries: Line[] }>({ op: 'timeline', job: JOB, before: 50 })).entries;
    const second = all[1]!;
    const { entries } = await op<{ entries: Line[] }>({ op: 'timeline', job: JOB, time: second.time, before: 0, after: 0 });
    expect(entries.map((e) => e.seq)).toEqual([all.filter((e) => e.time <= second.time).at(-1)!.seq]);
    const newest = await runCli(box, ['timeline', '--job', JOB, '--before', '1', '--json']);
    expect((JSON.parse(newest.stdout) as { entries: Line[] }).entries.map((e) => e.seq)).toEqual(all.slice(-2).map((e) => e.seq));
  });

  it('still finds the summaries after the daemon restarts', async () => {
    client.close();
    await daemon.stop();
    daemon = await startDaemon(box);
    client = await RawClient.connect(box.socket);
    expect((await search('refund')).hits.map((h) => h.seq)).toEqual([seqs[2], seqs[1]]);
  });
});
