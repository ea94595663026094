// The two places recap installs an agent's hooks: for the user (every project) or for one
// project, and the home folder an agent's own folder is found under.
import { homedir } from 'node:os';
import type { InstallOptions } from '../adapter.js';

export type Scope = InstallOptions['scope'];

/** The user's scope first: the doctors report in this order. */
export const SCOPES: readonly Scope[] = ['user', 'project'];

/** The user's home as the agent sees it: HOME, else the account's. */
export const homeOf = (env: NodeJS.ProcessEnv): string => env.HOME ?? homedir();

/** What `recap install` adds for a scope: nothing for the user's, the default. */
export const scopeFlag = (scope: Scope): string => (scope === 'project' ? ' --scope project' : '');
