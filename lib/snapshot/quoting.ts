/**
 * The outline's quoting, done here rather than in the page: the walk marks each quoted string
 * with two control characters it never lets through otherwise, and a line is quoted only after
 * typed values are hidden in it. Hiding a value once, in the form the page shows it, means no
 * escaping scheme (JSON today) can turn it into a form the hiding does not know.
 */

/** What the walk puts around a string to be quoted (pageSemantics.ts writes the same two). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the two marks are control characters on purpose.
const QUOTED = /\u0001([^\u0001\u0002]*)\u0002/g;

/** Hides typed values in a line's text, raw, before it is quoted. */
export type Mask = (text: string) => string;

/** A line of the walk as the outline writes it: masked, then its marked strings JSON-quoted. */
export function finishLine(text: string, mask: Mask | undefined): string {
  const hidden = mask ? mask(text) : text;
  return hidden.replace(QUOTED, (_, raw: string) => JSON.stringify(raw));
}
