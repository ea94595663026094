// The memory quality signals, per summary and per job, folded from the log: in the sessions
// that start after an accepted summary, the files they looked up again first (rediscovery),
// the questions they asked the user that the chain answered (re-asked), the early prompts
// that set them right (corrections); and each summary's task: the interactions and counted
// tokens from it to the next trip. Pure: the daemon hands in the events in log order.
import type { StoredEvent } from './events.js';
import { answerHeld, corrects, EARLY_PROMPTS, heldAnswers, namedFiles, questionsOf, rediscovered, subjectWords, type HeldAnswer } from './qualityRules.js';

/** The most characters of a question or prompt a signal keeps. */
const SHOWN_CHARS = 160;
const cut = (text: string) => (text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS - 1).trimEnd()}…`);

/** How a summary's task ended: the next trip, a next summary with no trip between, or not yet. */
export type TaskEnd = 'trip' | 'summary' | 'open';

export type SummaryQuality = {
  seq: number;
  time: number;
  gist?: string;
  /** Sessions that started after it, before the job's next summary. */
  sessions: number;
  rediscoveries: { session: string; file: string }[];
  reasked: { session: string; question: string; answer: string }[];
  corrections: { session: string; prompt: string }[];
  task: { interactions: number; countedTokens: number; ended: TaskEnd };
};

export type QualityTotals = {
  summaries: number;
  sessions: number;
  rediscoveries: number;
  reasked: number;
  corrections: number;
  tasks: number;
  taskInteractions: number;
  taskTokens: number;
};

export type JobQuality = { job: string; summaries: SummaryQuality[]; totals: QualityTotals };

/** A summary as the signals read it; `root`: the project folder its paths are in, as it was accepted. */
type Entry = { quality: SummaryQuality; root?: string; files: string[]; words: Set<string>; answers: HeldAnswer[] };
type Followed = { entry: Entry; prompts: number; calls: boolean };
type JobFold = { entries: Map<number, Entry>; newest?: Entry; task?: Entry };

/** The fold's state: each job's summaries, and the sessions that followed one. */
export type QualityFold = { jobs: Map<string, JobFold>; sessions: Map<string, Followed> };

export const emptyQuality = (): QualityFold => ({ jobs: new Map(), sessions: new Map() });

const jobOf = (q: QualityFold, job: string): JobFold => {
  let found = q.jobs.get(job);
  if (found === undefined) q.jobs.set(job, (found = { entries: new Map() }));
  return found;
};

function read(entry: Entry, text: string, refs: Parameters<typeof namedFiles>[1], root: string | undefined): void {
  entry.files = namedFiles(text, refs, root);
  entry.words = subjectWords(text);
  entry.answers = heldAnswers(text);
}

/** The answers the job's chain holds: every summary's, newest text in force. */
const answersOf = (job: JobFold): HeldAnswer[] => [...job.entries.values()].flatMap((e) => e.answers);

/** Folds one event into the signals, in place. */
export function foldQuality(q: QualityFold, event: StoredEvent): void {
  switch (event.type) {
    case 'SummaryAccepted': {
      const { job: id, topic, text, refs, filesRoot, gist, time } = event.data;
      if (topic !== undefined) return;
      const job = jobOf(q, id);
      if (job.task !== undefined) job.task.quality.task.ended = 'summary';
      const quality: SummaryQuality = {
        seq: event.seq,
        time,
        ...(gist !== undefined ? { gist } : {}),
        sessions: 0,
        rediscoveries: [],
        reasked: [],
        corrections: [],
        task: { interactions: 0, countedTokens: 0, ended: 'open' },
      };
      const entry: Entry = { quality, files: [], words: new Set(), answers: [], ...(filesRoot !== undefined ? { root: filesRoot } : {}) };
      read(entry, text, refs, filesRoot);
      job.entries.set(event.seq, entry);
      job.newest = entry;
      job.task = entry;
      return;
    }
    case 'SummaryAmended': {
      const entry = q.jobs.get(event.data.job)?.entries.get(event.data.entry);
      if (entry === undefined) return;
      // An amendment names its folder only with its files: its text's paths are in the entry's.
      read(entry, event.data.text, event.data.refs, event.data.filesRoot ?? entry.root);
      if (!event.data.redacted) entry.quality.gist = event.data.gist;
      return;
    }
    case 'EntryRedacted': {
      const entry = event.data.what === 'summary' ? q.jobs.get(event.data.job)?.entries.get(event.data.seq) : undefined;
      if (entry !== undefined) read(entry, '', [], undefined);
      return;
    }
    case 'GateTripped': {
      const job = q.jobs.get(event.data.job);
      if (job?.task === undefined) return;
      job.task.quality.task.ended = 'trip';
      delete job.task;
      return;
    }
    case 'SessionBound': {
      const entry = q.jobs.get(event.data.job)?.newest;
      if (entry === undefined || q.sessions.has(event.data.session)) return;
      entry.quality.sessions += 1;
      q.sessions.set(event.data.session, { entry, prompts: 0, calls: false });
      return;
    }
    case 'FirstCallsRecorded': {
      const followed = q.sessions.get(event.data.session);
      // A session's first record only: a daemon restarted mid-session starts counting again.
      if (followed === undefined || followed.calls) return;
      followed.calls = true;
      const { session } = event.data;
      for (const file of rediscovered(event.data.calls, followed.entry.files)) followed.entry.quality.rediscoveries.push({ session, file });
      return;
    }
    case 'InteractionRecorded':
      interaction(q, event);
      return;
    default:
      return;
  }
}

function interaction(q: QualityFold, event: StoredEvent & { type: 'InteractionRecorded' }): void {
  const { job: id, kind, text, tokens, counted, session } = event.data;
  const job = q.jobs.get(id);
  if (job?.task !== undefined) {
    job.task.quality.task.interactions += 1;
    if (counted) job.task.quality.task.countedTokens += tokens;
  }
  const followed = session !== undefined ? q.sessions.get(session) : undefined;
  if (followed === undefined || session === undefined || job === undefined || text === '') return;
  const { quality } = followed.entry;
  if (kind === 'qa') {
    const answers = answersOf(job);
    for (const question of questionsOf(text)) {
      const held = answerHeld(question, answers);
      if (held !== undefined) quality.reasked.push({ session, question: cut(question), answer: cut(held.text) });
    }
  } else if (kind === 'prompt' && followed.prompts < EARLY_PROMPTS) {
    followed.prompts += 1;
    if (corrects(text, followed.entry.words)) quality.corrections.push({ session, prompt: cut(text) });
  }
}

/** The job's signals: its summaries oldest first, and their totals (tasks: the ended ones). */
export function jobQuality(q: QualityFold, job: string): JobQuality | undefined {
  const fold = q.jobs.get(job);
  if (fold === undefined) return undefined;
  const summaries = [...fold.entries.values()].map((e) => structuredClone(e.quality));
  return { job, summaries, totals: totalsOf(summaries) };
}

function totalsOf(summaries: readonly SummaryQuality[]): QualityTotals {
  const ended = summaries.filter((s) => s.task.ended !== 'open');
  const sum = (pick: (s: SummaryQuality) => number, of = summaries) => of.reduce((n, s) => n + pick(s), 0);
  return {
    summaries: summaries.length,
    sessions: sum((s) => s.sessions),
    rediscoveries: sum((s) => s.rediscoveries.length),
    reasked: sum((s) => s.reasked.length),
    corrections: sum((s) => s.corrections.length),
    tasks: ended.length,
    taskInteractions: sum((s) => s.task.interactions, ended),
    taskTokens: sum((s) => s.task.countedTokens, ended),
  };
}

/** Every job's totals, for telemetry: read in place, nothing copied. */
export function qualityTotals(q: QualityFold): [job: string, totals: QualityTotals][] {
  return [...q.jobs].map(([job, fold]) => [job, totalsOf([...fold.entries.values()].map((e) => e.quality))]);
}
