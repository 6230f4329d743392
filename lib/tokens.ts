/**
 * Tokens of text, estimated the way o200k (GPT-4o's tokenizer) cuts it, without its 2.4 MB of
 * merge ranks. Text is split as o200k splits it before merging (its own pattern: words with the
 * space or sign before them, numbers of up to three digits, runs of signs, spaces), and no
 * token crosses those pieces, so a text's count is the sum of its pieces'. Each piece is then
 * priced by what it is made of, with figures measured with o200k on the 170 pages of the
 * shared corpus and on paragraphs of 15 languages (bench/tokenEstimate.bench.ts checks them):
 *
 * - an ASCII word by its length and case (a word of up to 5 letters is almost always one token;
 *   a capitalised one of 10, 1.6);
 * - a word of another script as a first letter plus so much per letter (Cyrillic 0.17, Arabic
 *   0.15, Greek 0.31, Hangul 0.47, a Chinese character 0.76, kana 0.62, …);
 * - a number piece, a space run: one; signs by their kind (an emoji about 1.6).
 *
 * The sum is raised by ESTIMATE_MARGIN so that it errs a little high: a budget counted with it
 * holds in o200k tokens. Other providers' tokenizers count differently (Claude's and Gemini's
 * somewhat more for the same text): a budget is o200k's.
 */

/** o200k's pre-tokenizer (tiktoken's pattern for o200k_base), as JavaScript can write it. */
const PIECES =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** What the estimate is multiplied by: measured pieces average out a few percent either way. */
export const ESTIMATE_MARGIN = 1.04;

/** Tokens of an ASCII word by its letters (index: length), lower-case first / capital first. */
const LOWER = [0, 1.01, 1.01, 1.01, 1.01, 1.03, 1.06, 1.09, 1.14, 1.18, 1.25, 1.33, 1.44, 1.6, 1.7];
const CAPITAL = [0, 1.01, 1.03, 1.07, 1.11, 1.16, 1.25, 1.32, 1.4, 1.47, 1.6, 1.85, 1.99, 2, 2.25];

/** A script's first letter (what a word starts at) and each letter after it. */
interface Rate {
  first: number;
  each: number;
}
const LATIN: Rate = { first: 1, each: 0.25 };
const GREEK: Rate = { first: 0.3, each: 0.31 };
const CYRILLIC: Rate = { first: 0.73, each: 0.17 };
const HEBREW: Rate = { first: 0.6, each: 0.26 };
const ARABIC: Rate = { first: 0.74, each: 0.15 };
const INDIC: Rate = { first: 0.35, each: 0.23 };
const THAI: Rate = { first: 0.1, each: 0.43 };
const HANGUL: Rate = { first: 1, each: 0.47 };
const KANA: Rate = { first: 0.6, each: 0.62 };
const HAN: Rate = { first: 0.6, each: 0.76 };
/** Fullwidth Latin letters and digits (Japanese pages' "Ｍａｎｃｈｅｓｔｅｒ"): about one each. */
const FULLWIDTH: Rate = { first: 0.3, each: 1 };
const OTHER: Rate = { first: 0.5, each: 0.45 };
const SCRIPT_CHANGE = 0.5;

function rateOf(code: number): Rate {
  if (code < 0x370) return LATIN;
  if (code < 0x400) return GREEK;
  if (code < 0x530) return CYRILLIC;
  if (code < 0x590) return OTHER;
  if (code < 0x600) return HEBREW;
  if (code < 0x780) return ARABIC;
  if (code >= 0x900 && code < 0xe00) return INDIC;
  if (code >= 0xe00 && code < 0xf00) return THAI;
  if ((code >= 0x1100 && code < 0x1200) || (code >= 0x3130 && code < 0x3190)) return HANGUL;
  if (code >= 0x1e00 && code < 0x1f00) return LATIN;
  if (code >= 0x1f00 && code < 0x2000) return GREEK;
  if ((code >= 0x3040 && code < 0x3100) || (code >= 0x31f0 && code < 0x3200)) return KANA;
  if (code >= 0x3400 && code < 0xa000) return HAN;
  if (code >= 0xac00 && code < 0xd7b0) return HANGUL;
  if (code >= 0xf900 && code < 0xfb00) return HAN;
  if (code >= 0xfb50 && code < 0xfe00) return ARABIC;
  if (code >= 0xfe70 && code < 0xff00) return ARABIC;
  if (code >= 0xff00 && code < 0xff66) return FULLWIDTH;
  if (code >= 0xff66 && code < 0xffa0) return KANA;
  if (code >= 0x20000 && code < 0x40000) return HAN;
  return OTHER;
}

const isAsciiLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isSpace = (code: number) => code === 0x20 || (code >= 0x09 && code <= 0x0d);
/** Letters, digits and the marks that join letters: what a word piece is made of. */
const LETTER = /[\p{L}\p{N}\p{M}]/u;

/** One piece of o200k's pre-tokenizer, priced. */
export function pieceTokens(piece: string): number {
  const head = piece.charCodeAt(0);
  // The common pieces first, by their codes: a word, a word after a space, a number.
  if (isAsciiLetter(head)) return wordTokens(piece, 0);
  if (head === 0x20 && piece.length > 1 && isAsciiLetter(piece.charCodeAt(1)))
    return wordTokens(piece, 1);
  if (head >= 0x30 && head <= 0x39) return 1;
  if (isSpace(head) && piece.trim() === "") return 1;
  const lead = LETTER.test(piece[0]!) ? 0 : 1;
  if (lead === piece.length) return 1;
  const start = piece.codePointAt(lead)!;
  if (start >= 0x30 && start <= 0x39) return 1;
  if (LETTER.test(String.fromCodePoint(start))) return wordTokens(piece, lead);
  return signTokens(piece);
}

/**
 * A word: its letters, with what comes before it. A space is free (o200k's words mostly start
 * with one); a sign costs, more before a capital; no space (a line's first word) costs a little.
 */
function wordTokens(piece: string, lead: number): number {
  const capital = piece.charCodeAt(lead) < 0x61;
  const extra = !lead ? 0.2 : isSpace(piece.charCodeAt(0)) ? 0 : capital ? 0.8 : 0.2;
  let ascii = true;
  for (let i = lead; i < piece.length; i++) {
    const code = piece.charCodeAt(i);
    if (!isAsciiLetter(code) && code !== 0x27) {
      ascii = false;
      break;
    }
  }
  const letters = piece.length - lead;
  if (ascii) {
    const table = capital ? CAPITAL : LOWER;
    return extra + (letters < table.length ? table[letters]! : letters / 4.2);
  }
  let previous = rateOf(piece.codePointAt(lead)!);
  let tokens = extra + previous.first;
  let last = -1;
  for (let i = lead; i < piece.length; i++) {
    const code = piece.codePointAt(i)!;
    if (code > 0xffff) i++;
    if (isAsciiLetter(code)) {
      tokens += 0.14;
    } else if (code === last) {
      // A letter again (长长长…): no merge joins it to its twin, it is a token of its own.
      tokens += 1;
    } else {
      // A word that changes script (kanji to kana) is cut there more often than not.
      const rate = rateOf(code);
      tokens += rate.each + (rate === previous ? 0 : SCRIPT_CHANGE);
      previous = rate;
    }
    last = code;
  }
  return tokens;
}

/** Signs: ASCII ones merge in threes; other signs near one each; an emoji more. */
function signTokens(piece: string): number {
  let ascii = 0;
  let tokens = 0;
  for (let i = 0; i < piece.length; i++) {
    const code = piece.codePointAt(i)!;
    if (code > 0xffff) {
      i++;
      tokens += 1.85;
    } else if (code < 0x80) {
      if (!isSpace(code)) ascii++;
    } else if (code === 0x200d || code === 0xfe0f) {
      tokens += 0.5;
    } else {
      tokens += 0.72;
    }
  }
  if (ascii) tokens += 1 + Math.max(0, ascii - 3) * 0.4;
  return Math.max(1, tokens);
}

/** The estimate of `text`'s o200k tokens, with the margin. */
export function estimateTokens(text: string): number {
  if (isAscii(text)) return Math.ceil(asciiTokens(text) * ESTIMATE_MARGIN);
  let tokens = 0;
  eachPiece(text, (piece) => {
    tokens += pieceTokens(piece);
  });
  return Math.ceil(tokens * ESTIMATE_MARGIN);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the range asked about.
const isAscii = (text: string) => /^[\x00-\x7f]*$/.test(text);

/** o200k's pieces of `text`: by the scanner below for ASCII (most outlines), else the pattern. */
export function eachPiece(text: string, visit: (piece: string) => void): void {
  if (isAscii(text)) {
    asciiTokens(text, (start, end) => visit(text.slice(start, end)));
    return;
  }
  const pieces = new RegExp(PIECES);
  for (let match = pieces.exec(text); match; match = pieces.exec(text)) visit(match[0]);
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isNewline = (c: number) => c === 0x0a || c === 0x0d;
const isSign = (c: number) => !isSpace(c) && !isAsciiLetter(c) && !isDigit(c);
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"];

/**
 * PIECES, for ASCII text, as a scanner: the same alternatives in the same order, with the same
 * greed and backtracking, without the pattern's Unicode classes (a 2.2 MB outline estimated in
 * 68 ms against 80). Each piece is priced as it is cut (what pieceTokens would say of it), and
 * the sum returned; `visit`, when given, is told where each piece starts and ends. The estimate
 * of every outline line goes through here without a visitor: no slice and no call per piece.
 */
export function asciiTokens(text: string, visit?: (start: number, end: number) => void): number {
  const n = text.length;
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const start = i;
    // A word: an optional sign or space (not a line break) before letters.
    const lead = !isAsciiLetter(c) && !isDigit(c) && !isNewline(c) ? 1 : 0;
    const letterAt = i + lead;
    if (letterAt < n && isAsciiLetter(text.charCodeAt(letterAt))) {
      let j = letterAt;
      while (j < n && isUpper(text.charCodeAt(j))) j++;
      while (j < n && isLower(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 0x27) {
        const contraction = CONTRACTIONS.find((k) => text.startsWith(k, j));
        if (contraction) j += contraction.length;
      }
      const capital = text.charCodeAt(letterAt) < 0x61;
      const extra = !lead ? 0.2 : isSpace(c) ? 0 : capital ? 0.8 : 0.2;
      const letters = j - letterAt;
      const table = capital ? CAPITAL : LOWER;
      tokens += extra + (letters < table.length ? table[letters]! : letters / 4.2);
      i = j;
    } else if (isDigit(c)) {
      // Up to three digits.
      let j = i + 1;
      while (j < n && j < i + 3 && isDigit(text.charCodeAt(j))) j++;
      tokens += 1;
      i = j;
    } else if ((c === 0x20 ? i + 1 : i) < n && isSign(text.charCodeAt(c === 0x20 ? i + 1 : i))) {
      // Signs, after one optional space, with the line breaks and slashes after them; every
      // sign and slash counts (signTokens), the line breaks do not.
      const signsAt = c === 0x20 ? i + 1 : i;
      let j = signsAt + 1;
      while (j < n && isSign(text.charCodeAt(j))) j++;
      let signs = j - signsAt;
      for (; j < n && (isNewline(text.charCodeAt(j)) || text.charCodeAt(j) === 0x2f); j++) {
        if (text.charCodeAt(j) === 0x2f) signs++;
      }
      tokens += 1 + Math.max(0, signs - 3) * 0.4;
      i = j;
    } else {
      // White space: up to its last line break if it has one; else all of it at the end of the
      // text, or all but its last character before a non-space; a single one alone.
      let end = i;
      while (end < n && isSpace(text.charCodeAt(end))) end++;
      let lastBreak = -1;
      for (let k = end - 1; k >= i; k--) {
        if (isNewline(text.charCodeAt(k))) {
          lastBreak = k;
          break;
        }
      }
      tokens += 1;
      i = lastBreak >= 0 ? lastBreak + 1 : end === n || end - i === 1 ? end : end - 1;
    }
    visit?.(start, i);
  }
  return tokens;
}

/**
 * Where a piece of `text` starting at `from` ends (an index past it) so that its estimate fits
 * `tokens`: at least one character, never between the two halves of one. Cut between o200k's
 * pieces where one fits; a single piece too long for the budget (a run of Chinese, a long URL)
 * is cut inside, by its characters' share.
 */
export function pieceEnd(text: string, from: number, tokens: number): number {
  const budget = tokens / ESTIMATE_MARGIN;
  const pieces = new RegExp(PIECES);
  pieces.lastIndex = from;
  let cost = 0;
  let end = from;
  for (let match = pieces.exec(text); match; match = pieces.exec(text)) {
    const piece = match[0];
    const price = pieceTokens(piece);
    if (cost + price <= budget) {
      cost += price;
      end = match.index + piece.length;
      continue;
    }
    // Within the piece: as many characters as its price per character leaves room for.
    const share = Math.floor(((budget - cost) / price) * piece.length);
    end = match.index + Math.max(0, share);
    break;
  }
  end = Math.min(text.length, Math.max(from + 1, end));
  // A cut inside a word prices each side as a word of its own: shorten until the piece fits.
  while (end - from > 1 && estimateTokens(text.slice(from, end)) > tokens) {
    end = from + Math.max(1, Math.floor((end - from) * 0.9));
  }
  // Never between the two halves of one character: back before it, or (alone) past it.
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - from > 1 ? -1 : 1;
  return end;
}
