// A count with its noun, singular for one: "1 problem", "3 problems", "1 token"; a value the user gave, shown short.
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;

/** A value the user gave, quoted as JSON and cut after 60 characters: an error never echoes kilobytes back. */
export const givenValue = (value: unknown): string => {
  const text = String(value);
  return text.length <= 60 ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, 60))}... (${text.length} characters)`;
};
