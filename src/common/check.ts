/** One line of `recap doctor`: what was checked, whether it is well, and what to do if not. */
export type Check = { name: string; ok: boolean; detail: string; fix?: string };
