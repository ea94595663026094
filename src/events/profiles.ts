// The summary templates PROFILE chooses from. Each names its sections, and may set the band
// and floor its format is written for, the sections that quote the user word for word, and
// what the template shows under a section. A key the user sets wins over the profile's.
import { headingKey } from './summaryHeadings.js';

export const DEFAULT_SECTIONS = ['User Requests', 'Questions & Decisions', 'Design Choices', 'Corrections & Feedback', 'Current State'];

/** The templates PROFILE chooses from; REQUIRED_SECTIONS, when set, overrides them. */
export const PROFILES = {
  default: DEFAULT_SECTIONS,
  handoff: ['Completed Tasks', 'Active Task', 'Key Decisions', 'User Directives', 'Current Work'],
  progress: ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context'],
  research: ['Sources Cited', 'Hypotheses Tested', 'Open Questions'],
  consulting: ['Client Goals', 'Constraints Surfaced', 'Action Items'],
  legal: ['Statutes Referenced', 'Precedents Reviewed', 'Open Conflicts'],
  // A support desk's record: the questions asked and their answers, and what was decided, as entries.
  support: ['Customer Issue', 'Questions Answered', 'Decisions', 'Follow-ups'],
} as const satisfies Record<string, readonly string[]>;

export type ProfileName = keyof typeof PROFILES;

/** The config keys a profile may set besides its sections. */
export type ProfileRules = {
  SUMMARY_MIN_TOKENS: number;
  SUMMARY_MAX_TOKENS: number;
  MIN_TOKENS_PER_SECTION: number;
  VERBATIM_SECTIONS: readonly string[];
};

/** The default profile's: the keys' documented defaults, which every other profile starts from. */
export const DEFAULT_RULES: ProfileRules = { SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 1000, MIN_TOKENS_PER_SECTION: 50, VERBATIM_SECTIONS: [] };

const RULES: Partial<Record<ProfileName, Partial<ProfileRules>>> = {
  // The yoi compaction format: 1,000 to 2,000 tokens, about 200 a section, and the user's
  // directives in their own words (a section of real quotes has no floor: summaryQuotes.ts).
  handoff: { SUMMARY_MIN_TOKENS: 1000, SUMMARY_MAX_TOKENS: 2000, MIN_TOKENS_PER_SECTION: 100, VERBATIM_SECTIONS: ['User Directives'] },
};

/** The profile's value of a key the user did not set. */
export function profileRule<K extends keyof ProfileRules>(profile: ProfileName, key: K): ProfileRules[K] {
  return RULES[profile]?.[key] ?? DEFAULT_RULES[key];
}

/** Whether the profile sets the key to a value of its own (else the key's default applies). */
function profileSets(profile: ProfileName, key: keyof ProfileRules): boolean {
  return RULES[profile]?.[key] !== undefined;
}

/** Whether a config key is one a profile may set. */
const isProfiled = (key: string): key is keyof ProfileRules => Object.hasOwn(DEFAULT_RULES, key);

/** Where a value no file sets comes from when the profile sets it (`PROFILE=handoff`): `recap config show` and band problems say so. */
export function profileSource(profile: ProfileName, key: string): string | undefined {
  const set = key === 'REQUIRED_SECTIONS' ? profile !== 'default' : isProfiled(key) && profileSets(profile, key);
  return set ? `PROFILE=${profile}` : undefined;
}

/**
 * The section whose `decision — reason` lines are the job's decision log (decisionLog.ts), by
 * profile; a profile without one has none. Every one of them is looked for in every summary,
 * whatever PROFILE is in force now, so changing profiles never renumbers the log.
 */
const DECISIONS_SECTION: Partial<Record<ProfileName, string>> = {
  default: 'Questions & Decisions',
  handoff: 'Key Decisions',
  progress: 'Key Decisions',
  support: 'Decisions',
};

/** The heading keys (headingKey) of every profile's decisions section. */
export const DECISIONS_SECTIONS: ReadonlySet<string> = new Set(Object.values(DECISIONS_SECTION).map(headingKey));

/** The decisions section of a profile, if it has one. */
export const decisionsSection = (profile: ProfileName): string | undefined => DECISIONS_SECTION[profile];

/**
 * A section written as repeatable entries, of which it must hold at least `min` well-formed:
 * `qa`, a `### Q: <question>` heading with its answer under it; `decision`, one line per
 * decision, `- <decision> — <reason>`.
 */
export type EntryRule = { form: 'qa' | 'decision'; min: number };

/** The sections each profile requires as entries, not just prose (summaryEntries.ts checks them). */
const ENTRY_SECTIONS: Partial<Record<ProfileName, Record<string, EntryRule>>> = {
  support: { 'Questions Answered': { form: 'qa', min: 1 }, Decisions: { form: 'decision', min: 1 } },
};

/** The entry rule of a section under this profile, if it is written as entries. */
export function entryRule(profile: ProfileName | undefined, section: string): EntryRule | undefined {
  const key = headingKey(section);
  return Object.entries(ENTRY_SECTIONS[profile ?? 'default'] ?? {}).find(([name]) => headingKey(name) === key)?.[1];
}

/** How an entry of each form is written: the template shows it, and the validator's messages name it. */
export const ENTRY_FORMS: Record<EntryRule['form'], string> = {
  qa: '### Q: <question>\n<its answer>',
  decision: '- <decision> — <reason>',
};

/** What the template shows under a section, by profile: the sub-structure its format asks for. */
const HINTS: Partial<Record<ProfileName, Record<string, string>>> = {
  handoff: {
    'Completed Tasks': '### <task>\n<what was done, and its outcome>',
    'Active Task': 'Goal: <what the user wants done>\nState: <what is done, what is not>\nNext step: <the very next action>',
    'Key Decisions': '- <decision> — <reason>',
    'Current Work': '<current work: the files and functions being changed right now, and how far it got>',
  },
};

/** The template's placeholder for a section under this profile, if the profile gives one. */
export function sectionHint(profile: ProfileName | undefined, section: string): string | undefined {
  const entries = entryRule(profile, section);
  if (entries) return `${ENTRY_FORMS[entries.form]}\n<at least ${entries.min}, one per ${entries.form === 'qa' ? 'question' : 'decision'}>`;
  const hints = HINTS[profile ?? 'default'] ?? {};
  const key = headingKey(section);
  return Object.entries(hints).find(([name]) => headingKey(name) === key)?.[1];
}
