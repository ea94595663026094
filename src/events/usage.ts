// The model's token use, from the agent's transcript: each message once (keyed by its
// message id and request id), counted for the agent (main or a subagent) that made it.
import type { RecordUsage } from './commands.js';
import type { RecapEvent } from './events.js';
import type { Decision } from './decision.js';
import type { JobState } from './jobState.js';

export function recordUsage(command: RecordUsage, state: JobState): Decision<{ recorded: number }> {
  const { job, session, now } = command;
  const seen = new Set<string>();
  const events: RecapEvent[] = [];
  for (const entry of command.entries) {
    if (state.usageSeen[entry.key] || seen.has(entry.key)) continue;
    seen.add(entry.key);
    events.push({ type: 'UsageRecorded', data: { job, session, ...entry, time: now } });
  }
  return { answer: { recorded: events.length }, events };
}
