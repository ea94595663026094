// A count with its noun, singular for one: "1 problem", "3 problems", "1 token".
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;
