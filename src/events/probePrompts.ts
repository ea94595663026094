// The three requests `recap eval --probes` makes of the model for each window, in one place:
// write probe questions from the window, answer them from the summary and memory alone (the
// window is never in that request), and judge each answer against the window. Each asks for
// JSON only, which probes.ts reads.
import type { ProbeKind, ProbeWindow } from './probes.js';

export type ChatMessage = { role: 'system' | 'user'; content: string };

/** How many questions of each kind a window is asked. */
export const QUESTIONS_PER_KIND = 2;

export const KIND_MEANINGS: Record<ProbeKind, string> = {
  recall: 'a fact or an error that came up in the window (a value, a name, a failure and its cause)',
  artifacts: 'the artifact trail: a file touched or named, a decision taken and the reason given for it',
  next: 'what was to be done next when the window ended, and what was still open',
  directives: 'an instruction or preference the user stated (how to work, what not to do)',
};

const kinds = (Object.keys(KIND_MEANINGS) as ProbeKind[]).map((k) => `- "${k}": ${KIND_MEANINGS[k]}`).join('\n');

/** The window as the model reads it: each interaction with its number and kind. */
export function windowText(window: ProbeWindow): string {
  const interactions = window.interactions.map((i) => `[#${i.seq} ${i.kind}]${i.redacted ? ' (its text was redacted)' : `\n${i.text}`}`);
  const calls = window.calls.length === 0 ? [] : [`[tool calls, as sampled]\n${window.calls.map((c) => `- ${c.text}`).join('\n')}`];
  return [...interactions, ...calls].join('\n\n');
}

export function questionsRequest(window: ProbeWindow): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You test whether a summary of an AI coding session kept what the next session needs.',
        `From the session window below, write ${QUESTIONS_PER_KIND} questions of each of these kinds, each answerable from the window alone:`,
        kinds,
        'Skip a kind the window gives nothing for.',
        'Answer with JSON only: {"questions":[{"kind":"recall","question":"..."}]}',
      ].join('\n'),
    },
    { role: 'user', content: `The session window:\n\n${windowText(window)}` },
  ];
}

export function answersRequest(window: ProbeWindow, questions: readonly { kind: ProbeKind; question: string }[]): ChatMessage[] {
  const numbered = questions.map((q, i) => `${i + 1}. ${q.question}`).join('\n');
  return [
    {
      role: 'system',
      content: [
        'You are the next session of an AI coding agent. All you know of the earlier work is the summary and the memory below.',
        'Answer each question from them alone; where they do not say, answer "not recorded". Do not guess.',
        'Answer with JSON only: {"answers":[{"id":1,"answer":"..."}]}',
      ].join('\n'),
    },
    { role: 'user', content: `The summary:\n\n${window.summary}\n\nThe memory:\n\n${window.memory}\n\nThe questions:\n${numbered}` },
  ];
}

export function judgeRequest(window: ProbeWindow, probes: readonly { kind: ProbeKind; question: string; answer: string }[]): ChatMessage[] {
  const listed = probes.map((p, i) => `${i + 1}. (${p.kind}) ${p.question}\nAnswer: ${p.answer}`).join('\n\n');
  return [
    {
      role: 'system',
      content: [
        'You judge answers about an AI coding session against what really happened in it (the window below).',
        'Score each answer from 0 to 5: 5 correct and complete, 3 partly correct, 1 vague or mostly missing, 0 wrong, invented or "not recorded" when the window holds the answer.',
        'Answer with JSON only: {"scores":[{"id":1,"score":5,"why":"..."}]}',
      ].join('\n'),
    },
    { role: 'user', content: `The session window:\n\n${windowText(window)}\n\nThe questions and answers:\n\n${listed}` },
  ];
}
