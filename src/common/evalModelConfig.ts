// The model `recap eval --probes` asks: an OpenAI-compatible endpoint, its key and its model,
// from the user's config file alone. These keys are the user's only: a project's file is the
// agent's to write, and must never point recap at a URL it would send the user's windows to, so
// a project file that sets one is refused (configLayers.ts). The daemon never reads them.
import { existsSync, readFileSync } from 'node:fs';
import { parseConfigFile } from './configFile.js';

export const EVAL_MODEL_KEYS = ['EVAL_MODEL_URL', 'EVAL_MODEL_KEY', 'EVAL_MODEL'] as const;

/** Keys only the user's config file may set; the gate's configuration never holds them. */
export const USER_ONLY_KEYS: ReadonlySet<string> = new Set(EVAL_MODEL_KEYS);

/** What a project file that sets a user-only key is told. */
export const userOnlyProblem = (key: string, userFile: string): string =>
  `only your own config file (${userFile}) may set ${key}: a project's file could send your windows to any address; remove the line`;

export type EvalModel = { url: string; key: string; model: string };

export type EvalModelRead = { ok: true; model: EvalModel } | { ok: false; problem: string };

/** The eval model from the user's config file, or what is missing and where to set it. */
export function readEvalModel(userFile: string, env: Record<string, string | undefined>): EvalModelRead {
  const text = existsSync(userFile) ? readFileSync(userFile, 'utf8') : '';
  const { assignments } = parseConfigFile(text, env);
  const value = (key: string): string => {
    const v = assignments.get(key)?.value;
    return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
  };
  const missing = EVAL_MODEL_KEYS.filter((key) => value(key) === '');
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `--probes asks a model you choose, and none is set: put ${missing.join(', ')} in ${userFile} (EVAL_MODEL_URL="https://host/v1", an OpenAI-compatible endpoint; EVAL_MODEL_KEY, its key; EVAL_MODEL, the model's name); nothing was sent`,
    };
  }
  const url = value('EVAL_MODEL_URL');
  if (!/^https?:\/\/[^\s/]+/.test(url))
    return { ok: false, problem: `EVAL_MODEL_URL in ${userFile} must be an http:// or https:// address (the part before /chat/completions); nothing was sent` };
  return { ok: true, model: { url: url.replace(/\/+$/, ''), key: value('EVAL_MODEL_KEY'), model: value('EVAL_MODEL') } };
}
