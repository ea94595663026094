// `recap report`: where the tokens went, per job and agent, from the log.
import type { StoredEvent } from '../events/events.js';
import type { EventStore } from './eventStore.js';
import type { AgentRow, JobReport, SessionReport } from '../protocol/answers.js';
import { addTallies } from '../events/secrets.js';
import type { SessionIndex } from './sessionIndex.js';

const MAIN = 'main';

function emptyRow(agent: string): AgentRow {
  return { agent, interactions: 0, countedTokens: 0, denials: 0, input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
}

export async function usageReport(store: EventStore, filter: { job?: string; since?: number }): Promise<JobReport[]> {
  const jobs = new Map<string, { summaries: number; rejections: number; agents: Map<string, AgentRow>; secrets: Map<string, number> }>();
  const row = (event: StoredEvent, agent: string | undefined): { job: ReturnType<typeof jobOf>; row: AgentRow } => {
    const job = jobOf((event.data as { job: string }).job);
    const name = agent ?? MAIN;
    let found = job.agents.get(name);
    if (!found) job.agents.set(name, (found = emptyRow(name)));
    return { job, row: found };
  };
  const jobOf = (id: string) => {
    let job = jobs.get(id);
    if (!job) jobs.set(id, (job = { summaries: 0, rejections: 0, agents: new Map(), secrets: new Map() }));
    return job;
  };

  for await (const event of store.read()) {
    if (event.type === 'ConfigApplied' || event.type === 'ConfigApproved' || event.type === 'ConfigHeld') continue;
    if (filter.job !== undefined && event.data.job !== filter.job) continue;
    if (filter.since !== undefined && event.data.time < filter.since) continue;
    switch (event.type) {
      case 'InteractionRecorded': {
        const { row: r } = row(event, event.data.agent);
        r.interactions += 1;
        if (event.data.counted) r.countedTokens += event.data.tokens;
        addTallies(jobOf(event.data.job).secrets, event.data.secrets);
        break;
      }
      case 'ToolDenied':
        row(event, event.data.agent).row.denials += 1;
        break;
      case 'UsageRecorded': {
        const { row: r } = row(event, event.data.agent);
        r.input += event.data.input;
        r.output += event.data.output;
        r.cacheCreation += event.data.cacheCreation;
        r.cacheRead += event.data.cacheRead;
        break;
      }
      case 'SummaryAccepted':
        jobOf(event.data.job).summaries += 1;
        addTallies(jobOf(event.data.job).secrets, event.data.secrets);
        break;
      case 'SummaryRejected':
        jobOf(event.data.job).rejections += 1;
        break;
      case 'GateTripped':
        break;
    }
  }
  return [...jobs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([job, j]) => ({
      job,
      summaries: j.summaries,
      rejections: j.rejections,
      agents: [...j.agents.values()].sort((a, b) => a.agent.localeCompare(b.agent)),
      ...(j.secrets.size > 0 ? { secrets: [...j.secrets].map(([kind, count]) => ({ kind, count })) } : {}),
    }));
}

/** The sessions a report shows below its jobs: the newest first. */
export const SESSIONS_SHOWN = 20;

/** The reported jobs' sessions active since `since`, newest first, at most SESSIONS_SHOWN. */
export async function sessionsReport(index: SessionIndex, jobs: JobReport[], since: number | undefined): Promise<SessionReport[]> {
  const all = (await Promise.all(jobs.map((j) => index.sessionsOf(j.job)))).flat();
  return all
    .filter((r) => since === undefined || r.last >= since)
    .sort((a, b) => b.last - a.last)
    .slice(0, SESSIONS_SHOWN);
}
