/**
 * Tokens of text, estimated without a tokenizer, by script. Measured with o200k: English and
 * our outlines run about 3.5 to 4.9 characters a token, so ASCII and Latin letters count 3.2 a
 * token; Chinese, Japanese and Korean about one character a token on real pages (a page of 36,000
 * Chinese characters is 35,725 tokens), so each counts 1.1; other scripts (Cyrillic 3.8, Arabic
 * 3.1, Devanagari 3.3, Greek 2.8, Thai 2.6) count two characters a token; a character outside
 * the Basic Multilingual Plane (emoji, rare ideographs) counts as two wide ones. Every script
 * errs on the side of more tokens (smaller chunks, an earlier stop at a token cap).
 */
export function estimateTokens(text: string): number {
  let latin = 0;
  let other = 0;
  let wide = 0;
  for (let i = 0; i < text.length; i++) {
    const kind = kindOf(text.charCodeAt(i));
    if (kind === LATIN) latin++;
    else if (kind === OTHER) other++;
    else wide++;
  }
  return Math.ceil(latin / 3.2 + other / 2 + wide * WIDE_TOKENS);
}

/**
 * Where a piece of `text` starting at `from` ends (an index past it) so that its estimate fits
 * `tokens`: at least one character, never between the two halves of one.
 */
export function pieceEnd(text: string, from: number, tokens: number): number {
  let cost = 0;
  let end = from;
  while (end < text.length) {
    const kind = kindOf(text.charCodeAt(end));
    const next = cost + (kind === LATIN ? 1 / 3.2 : kind === OTHER ? 0.5 : WIDE_TOKENS);
    if (Math.ceil(next) > tokens && end > from) break;
    cost = next;
    end++;
  }
  end = Math.max(from + 1, end);
  // Never between the two halves of one character: back before it, or (alone) past it.
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - from > 1 ? -1 : 1;
  return end;
}

/**
 * A wide character's tokens: one and a tenth, so that Japanese pages of kanji, kana and ASCII
 * (URLs, code) estimate at or above o200k too (each of the corpus's 23 Japanese pages, against
 * 0.96 to 1.34 at exactly one).
 */
const WIDE_TOKENS = 1.1;
const LATIN = 0;
const OTHER = 1;
const WIDE = 2;

function kindOf(code: number): number {
  // ASCII, Latin-1 and Latin Extended-A/B: words of Latin letters.
  if (code < 0x250) return LATIN;
  if (
    (code >= 0x1100 && code <= 0x11ff) || // Hangul Jamo
    (code >= 0x2e80 && code <= 0x9fff) || // CJK radicals, symbols, kana, ideographs
    (code >= 0xa960 && code <= 0xa97f) || // Hangul Jamo Extended-A
    (code >= 0xac00 && code <= 0xd7ff) || // Hangul syllables
    (code >= 0xd800 && code <= 0xdfff) || // each half of a character past the BMP
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
    (code >= 0xff00 && code <= 0xffef) // full- and halfwidth forms
  ) {
    return WIDE;
  }
  return OTHER;
}
