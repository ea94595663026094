// `recap eval --probes`' conversation with the model, window by window: the questions from the
// window, the answers from the summary and memory alone, the judging against the window. The
// prompts are probePrompts.ts's; reading and scoring the replies is probes.ts's.
import { answersRequest, judgeRequest, questionsRequest } from '../events/probePrompts.js';
import { ProbeReplyError, readAnswers, readQuestions, readScores, windowScore, type ProbeWindow, type WindowProbes } from '../events/probes.js';
import { ModelError, type Ask } from './evalModel.js';

async function asked<T>(ask: Ask, step: string, messages: Parameters<Ask>[0], read: (reply: string) => T): Promise<T> {
  const reply = await ask(messages, step);
  try {
    return read(reply);
  } catch (error) {
    if (error instanceof ProbeReplyError) throw new ModelError(`the model's answer to ${step} could not be used: ${error.message}; try again, or another EVAL_MODEL`);
    throw error;
  }
}

export async function probeWindow(window: ProbeWindow, ask: Ask): Promise<WindowProbes> {
  const questions = await asked(ask, `the questions for ${window.name}`, questionsRequest(window), readQuestions);
  const answers = await asked(ask, `the answers for ${window.name}`, answersRequest(window, questions), (r) => readAnswers(r, questions.length));
  const probes = questions.map((q, i) => ({ ...q, answer: answers[i]! }));
  const scores = await asked(ask, `the judging for ${window.name}`, judgeRequest(window, probes), (r) => readScores(r, questions.length));
  return windowScore(
    window.name,
    probes.map((p, i) => ({ ...p, ...scores[i]! })),
  );
}

/** Every window in turn (one request at a time: the endpoint is the user's, and may be small). */
export async function runProbes(windows: readonly ProbeWindow[], ask: Ask, progress?: (done: number) => void): Promise<WindowProbes[]> {
  const results: WindowProbes[] = [];
  for (const window of windows) {
    results.push(await probeWindow(window, ask));
    progress?.(results.length);
  }
  return results;
}
