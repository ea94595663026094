// recap's instruments: what the gate did (trips, denials, summaries) and each ended session's
// tokens and tool calls, counted from the events appended, the tokens each job has not
// summarized read from the projection at each export,
// and how long the daemon took to answer each hook.
import type { Meter } from '@opentelemetry/api';
import type { AgentName } from '../../agents/known.js';
import type { HookAnswer } from '../../agents/facts.js';
import type { StoredEvent } from '../../events/events.js';
import type { QualityTotals } from '../../events/qualitySignals.js';
import { hookDecision } from './hookDecision.js';

export type RecapMetrics = {
  /** Counts what these new events did (never the history replayed at start). */
  count(events: readonly StoredEvent[]): void;
  hookAnswered(agent: AgentName, ms: number, answer: HookAnswer): void;
};

/** Hook answers take well under a millisecond to a few seconds (a transcript read): buckets for that range. */
const HOOK_BUCKETS_MS = [0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
const TOKEN_TYPES = ['input', 'output', 'cacheCreation', 'cacheRead'] as const;
const SUMMARY_BUCKETS_TOKENS = [100, 250, 500, 1000, 2000, 4000, 8000, 16000];

/** Each job's quality totals (qualitySignals.ts), exported as counters: they only grow. */
const QUALITY_COUNTERS: { name: string; unit: string; description: string; of: (t: QualityTotals) => number }[] = [
  { name: 'recap.quality.sessions', unit: '{session}', description: 'Sessions that started after an accepted summary, by job', of: (t) => t.sessions },
  {
    name: 'recap.quality.rediscoveries',
    unit: '{file}',
    description: 'Files a summary named that a following session looked up again in its first tool calls, by job',
    of: (t) => t.rediscoveries,
  },
  { name: 'recap.quality.reasked', unit: '{question}', description: "Questions to the user whose answer the job's chain held, by job", of: (t) => t.reasked },
  {
    name: 'recap.quality.corrections',
    unit: '{prompt}',
    description: "Early prompts of a following session that corrected the agent on a summary's subject, by job",
    of: (t) => t.corrections,
  },
  { name: 'recap.quality.tasks', unit: '{task}', description: 'Tasks ended: from an accepted summary to the next trip or summary, by job', of: (t) => t.tasks },
  { name: 'recap.quality.task_tokens', unit: '{token}', description: 'Counted tokens of the ended tasks, by job', of: (t) => t.taskTokens },
  { name: 'recap.quality.task_interactions', unit: '{interaction}', description: 'Interactions of the ended tasks, by job', of: (t) => t.taskInteractions },
];

export function recapMetrics(
  meter: Meter,
  unsummarized: () => Iterable<[job: string, tokens: number]>,
  quality: () => Iterable<[job: string, totals: QualityTotals]> = () => [],
): RecapMetrics {
  for (const counter of QUALITY_COUNTERS) {
    meter.createObservableCounter(counter.name, { unit: counter.unit, description: counter.description }).addCallback((result) => {
      for (const [job, totals] of quality()) result.observe(counter.of(totals), { job });
    });
  }
  meter
    .createObservableGauge('recap.tokens.unsummarized', { unit: '{token}', description: 'Tokens recorded in the job since its last accepted summary that count toward the gate' })
    .addCallback((result) => {
      for (const [job, tokens] of unsummarized()) result.observe(tokens, { job });
    });
  const trips = meter.createCounter('recap.gate.trips', { unit: '{trip}', description: 'Times the gate tripped, by reason' });
  const denials = meter.createCounter('recap.tool.denials', { unit: '{denial}', description: 'Tool calls denied, by tool and cause (gate or protected)' });
  const summaries = meter.createCounter('recap.summaries', { unit: '{summary}', description: 'Summaries submitted, by outcome (accepted or rejected)' });
  const summaryTokens = meter.createHistogram('recap.summary.tokens', {
    unit: '{token}',
    description: 'Length of accepted summaries',
    advice: { explicitBucketBoundaries: SUMMARY_BUCKETS_TOKENS },
  });
  const sessionTokens = meter.createCounter('recap.session.tokens', {
    unit: '{token}',
    description: "The model's tokens of the sessions that ended, by agent, model and type (input, output, cacheCreation, cacheRead)",
  });
  const sessionToolCalls = meter.createCounter('recap.session.tool_calls', { unit: '{call}', description: 'Tool calls of the sessions that ended, by agent' });
  const hookDuration = meter.createHistogram('recap.hook.duration', {
    unit: 'ms',
    description: 'Time the daemon took to answer a hook, by agent and decision (deny or allow)',
    advice: { explicitBucketBoundaries: HOOK_BUCKETS_MS },
  });

  return {
    count(events) {
      for (const event of events) {
        switch (event.type) {
          case 'GateTripped':
            trips.add(1, { reason: event.data.reason });
            break;
          case 'ToolDenied':
            denials.add(1, { tool: event.data.tool, cause: event.data.cause });
            break;
          case 'SummaryAccepted':
            summaries.add(1, { outcome: 'accepted' });
            summaryTokens.record(event.data.tokens);
            break;
          case 'SummaryRejected':
            summaries.add(1, { outcome: 'rejected' });
            break;
          case 'SessionEnded': {
            const { from: agent, byModel, toolCalls } = event.data;
            for (const row of byModel) for (const type of TOKEN_TYPES) if (row[type] > 0) sessionTokens.add(row[type], { agent, model: row.model, type });
            sessionToolCalls.add(toolCalls, { agent });
            break;
          }
          default:
            break;
        }
      }
    },
    hookAnswered(agent, ms, answer) {
      hookDuration.record(ms, { agent, decision: hookDecision(answer) });
    },
  };
}
