/**
 * Tokens of text, estimated without a tokenizer: the o200k tokenizer gives about 3.5 characters
 * per token on our outlines (measured by `npm run bench:snapshot`), so this errs on the side of
 * more tokens (smaller chunks, an earlier stop at a token cap).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.2);
}
