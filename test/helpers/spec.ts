// given/when/then for the decider: given past events, when a command, then the events it
// decides (and the answer it gives).
import { expect } from 'vitest';
import type { Command } from '../../src/events/commands.js';
import { DEFAULT_CONFIG, type Config } from '../../src/events/config.js';
import type { RecapEvent, StoredEvent } from '../../src/events/events.js';
import { CURRENT_VERSION } from '../../src/events/events.js';
import { decide } from '../../src/events/decide.js';

export { decide };
import type { DecideContext, Decision } from '../../src/events/decision.js';
import { evolve, initialJobState, type JobState } from '../../src/events/jobState.js';
import { wordsCounter } from '../../src/events/tokens.js';
import { NOTE_COUNT, notes } from './text.js';
import { claudeToolCall } from '../../src/agents/claude/facts.js';

export const JOB = 'demo-0badc0de';
/** The launcher the daemon keeps in its data folder: the only name of recap the gate accepts. */
export const LAUNCHER = '/home/dev/.local/share/recap/bin/recap';
export const T0 = Date.UTC(2026, 10, 22, 14, 0, 0);

/** Words as tokens, one each: easy numbers in tests. */
export const wordsConfig: Config = { ...DEFAULT_CONFIG, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1 };

export function context(config: Partial<Config> = {}): DecideContext {
  const full = { ...wordsConfig, ...config };
  return {
    config: full,
    count: wordsCounter(full.TOKEN_WORD_RATIO),
    recapPaths: new Set([LAUNCHER]),
    protected: { paths: ['/home/dev/.local/share/recap', '/run/user/1000/recap'], home: '/home/dev' },
  };
}

/** The job's state after `events`, numbered 1, 2, 3... as a fresh log would number them. */
export function stateFrom(events: RecapEvent[], job = JOB): JobState {
  return events.map(stored).reduce(evolve, initialJobState(job));
}

/** The accepted summaries' texts by sequence number, as stateFrom numbers the events (the log, in the daemon). */
export function textsFrom(events: RecapEvent[]): Map<number, string> {
  return new Map(events.flatMap((e, index) => (e.type === 'SummaryAccepted' ? [[index + 1, e.data.text] as const] : [])));
}

function stored(event: RecapEvent, index: number): StoredEvent {
  return { ...event, seq: index + 1, version: CURRENT_VERSION[event.type] } as StoredEvent;
}

export function given(events: RecapEvent[], config: Partial<Config> = {}) {
  // The summary texts a command may need (the daemon loads them from the log).
  const ctx = { ...context(config), texts: textsFrom(events) };
  return {
    when(command: Command) {
      const run = () => decide(command, stateFrom(events), ctx);
      return {
        // given/when/then is the spec's vocabulary (STYLE.md); nothing awaits this object.
        then(expected: RecapEvent[]): Decision<unknown> {
          const decision = run();
          expect(decision.events).toEqual(expected);
          return decision;
        },
        thenRefused(message: RegExp): void {
          expect(run).toThrow(message);
        },
        decision: run,
      };
    },
  };
}

export const words = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

export const interactionRecorded = (tokens: number, kind = 'prompt', counted = true): RecapEvent => ({
  type: 'InteractionRecorded',
  data: { job: JOB, kind, text: words(tokens), tokens, counted, time: T0 },
});

export const gateTripped = (unsummarizedTokens: number, limit = 500): RecapEvent => ({
  type: 'GateTripped',
  data: { job: JOB, reason: 'threshold', unsummarizedTokens, limit, time: T0 },
});

export const toolDenied = (tool: string, cause: 'gate' | 'protected' = 'gate'): RecapEvent => ({
  type: 'ToolDenied',
  data: { job: JOB, tool, cause, time: T0 },
});

export const record = (text: string, kind = 'prompt'): Command => ({ type: 'RecordInteraction', job: JOB, kind, text, now: T0 });
export const check = (tool: string, input?: unknown): Command => ({ type: 'CheckTool', job: JOB, call: claudeToolCall(tool, input), now: T0 });
export const submit = (text: string): Command => ({ type: 'SubmitSummary', job: JOB, text, now: T0 });

const VOCABULARY = notes(NOTE_COUNT).split(' ');
const PRIMES = Array.from({ length: 4000 }, (_, n) => n).filter(
  (n) => n > 1 && VOCABULARY.length % n !== 0 && Array.from({ length: n - 2 }, (_, d) => d + 2).every((d) => n % d !== 0),
);

/**
 * `n` words of the helper sentences' vocabulary, picked with a stride of its own for each
 * seed: varied words, and no run of five words shared between two seeds, so the validator
 * sees neither repetition nor a resubmitted summary. Sense is not the point here.
 */
function variedWords(n: number, seed: number): string {
  const stride = PRIMES[seed % PRIMES.length]!;
  return Array.from({ length: n }, (_, k) => VOCABULARY[(seed * 31 + k * stride) % VOCABULARY.length]).join(' ');
}

/**
 * A summary that passes the default template with word counting: a Gist line, then `perSection` words each,
 * the first of them "detail" (tests replace it with a marker). Summaries of different sizes
 * are different texts.
 */
export function validSummary(perSection = 60, sections = DEFAULT_CONFIG.REQUIRED_SECTIONS): string {
  return `Gist: ${variedWords(10, perSection * 16 + 97)}\n\n` + sections.map((s, i) => `## ${s}\ndetail ${variedWords(perSection - 1, perSection * 16 + i)}`).join('\n\n');
}

/** A job with `n` summaries, folded event by event (re-folding from scratch would be slow). */
export function chainOf(n: number): { state: JobState; texts: Map<number, string> } {
  const ctx = context();
  const state = initialJobState(JOB);
  const texts = new Map<number, string>();
  let seq = 0;
  for (let i = 0; i < n; i += 1) {
    for (const command of [record(`${words(5)} ${i}`), submit(validSummary(50 + (i % 20)).replace('detail', `detail${i}`))]) {
      for (const event of decide(command, state, { ...ctx, texts }).events) {
        evolve(state, { ...event, seq: (seq += 1), version: 1 } as StoredEvent);
        if (event.type === 'SummaryAccepted') texts.set(seq, event.data.text);
      }
    }
  }
  return { state, texts };
}
