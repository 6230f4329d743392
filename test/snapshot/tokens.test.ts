/**
 * The token estimate by script, and a budget that holds for every script. The figures each
 * script's estimate must not fall below are o200k's own counts of these very texts (measured with
 * gpt-tokenizer 4.0.0, the snapshot bench's tokenizer, when this test was written): an estimate
 * under them would let a chunk or a call pass its budget. A page of 36,000 Chinese characters,
 * 35,725 o200k tokens, once came out as 11,250.
 */
import { describe, expect, it } from "vitest";
import { chunkOutline } from "../../lib/snapshot/chunks.js";
import { asciiTokens, eachPiece, estimateTokens, pieceEnd, pieceTokens } from "../../lib/tokens.js";

/** Each text once, with its o200k count. */
const MEASURED: [string, string, number][] = [
  [
    "zh",
    "我们的团队在过去的一年里取得了显著的进展，包括新产品的发布和市场份额的增长。用户反馈非常积极，我们将继续努力。",
    35,
  ],
  [
    "ja",
    "東京の天気は明日晴れるでしょう。週末には友達と一緒に公園へ行く予定です。カタカナのテストもします。",
    38,
  ],
  [
    "ko",
    "오늘 날씨가 정말 좋네요. 우리는 내일 공원에 갈 예정입니다. 한국어 텍스트의 토큰 수를 측정합니다.",
    32,
  ],
  [
    "ru",
    "Сегодня хорошая погода. Мы собираемся пойти в парк завтра. Измеряем количество токенов.",
    23,
  ],
  ["ar", "الطقس جميل اليوم. سنذهب إلى الحديقة غدا. نقيس عدد الرموز في النص العربي.", 23],
  ["hi", "आज मौसम बहुत अच्छा है। हम कल पार्क जाने वाले हैं। हिंदी पाठ के टोकन गिनते हैं।", 24],
  ["th", "วันนี้อากาศดีมาก พวกเราจะไปสวนสาธารณะพรุ่งนี้ วัดจำนวนโทเค็นในข้อความภาษาไทย", 29],
  ["el", "Σήμερα ο καιρός είναι πολύ ωραίος. Αύριο θα πάμε στο πάρκο.", 21],
  [
    "en",
    "The quick brown fox jumps over the lazy dog. We measure tokens of English text here.",
    18,
  ],
  ["emoji", "🙂🚀🎉👍🏽", 8],
];

describe("estimateTokens", () => {
  it("is near o200k's count in every script measured (bench:tokens measures it on the corpus)", () => {
    for (const [script, text, o200k] of MEASURED) {
      const ratio = estimateTokens(text) / o200k;
      expect(ratio, script).toBeGreaterThanOrEqual(0.85);
      expect(ratio, script).toBeLessThanOrEqual(1.4);
    }
  });

  it("prices o200k's pieces: a short word one token, a space run one, a repeated character one each", () => {
    // o200k: 1,000 tokens for a run of 1,000 of one Chinese character; 10 for these ten words.
    const repeated = estimateTokens("长".repeat(1_000));
    expect(repeated).toBeGreaterThanOrEqual(1_000);
    expect(repeated).toBeLessThanOrEqual(1_100);
    const words = estimateTokens(" the cat sat on the mat and the dog ran");
    expect(words).toBeGreaterThanOrEqual(10);
    expect(words).toBeLessThanOrEqual(11);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("   ")).toBe(2);
  });
});

describe("pieceEnd", () => {
  it("cuts any script into pieces within the budget, never inside a character", () => {
    const text = MEASURED.map(([, t]) => t)
      .join(" ")
      .repeat(5);
    for (const budget of [1, 2, 5, 17, 64]) {
      let pieces = 0;
      for (let i = 0; i < text.length; ) {
        const end = pieceEnd(text, i, budget);
        const piece = text.slice(i, end);
        expect(end).toBeGreaterThan(i);
        if ([...piece].length > 1) expect(estimateTokens(piece)).toBeLessThanOrEqual(budget);
        // A piece never ends on the first half of a character.
        const last = piece.charCodeAt(piece.length - 1);
        if (end < text.length) expect(last >= 0xd800 && last <= 0xdbff, piece).toBe(false);
        i = end;
        pieces++;
      }
      expect(pieces).toBeGreaterThan(0);
    }
  });
});

describe("an outline of Chinese text, chunked", () => {
  it("keeps every chunk within its budget (a 36,000-character page once made one part of 35,725 tokens)", () => {
    const paragraph =
      "我们的团队在过去的一年里取得了显著的进展，包括新产品的发布和市场份额的增长。";
    const lines = [
      { text: 'document "新闻"', top: 0 },
      ...Array.from({ length: 200 }, (_, i) => ({
        text: `  paragraph "${paragraph.repeat(4)}"`,
        top: i * 20,
      })),
      { text: `  paragraph "${"长".repeat(20_000)}"`, top: 5_000 },
    ];
    const budget = 12_000;
    const chunks = chunkOutline(lines, budget);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBe(estimateTokens(chunk.text));
      expect(chunk.tokens).toBeLessThanOrEqual(budget);
      // In o200k tokens (gpt-tokenizer 4.0.0): 107 a paragraph line, one a "长", one a line break,
      // and at most 10 for the title line and the head of a cut line.
      const lines = chunk.text.split("\n");
      const real =
        lines.filter((l) => l.startsWith('  paragraph "我们')).length * 107 +
        (chunk.text.match(/长/g)?.length ?? 0) +
        lines.length * 11;
      expect(real).toBeLessThanOrEqual(budget);
    }
  });
});

describe("a line over the budget, cut", () => {
  it("keeps each piece at the line's depth, where a cut falls before a space too", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i % 7 ? "" : "y"} `).join("");
    const lines = [
      { text: 'document "Long"', top: 0 },
      { text: "  main", top: 0 },
      { text: `    paragraph "${words}"`, top: 10 },
    ];
    const chunks = chunkOutline(lines, 60);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      const [title, main, ...rest] = chunk.text.split("\n");
      expect(title).toBe('document "Long"');
      expect(main).toBe("  main");
      // One piece of the paragraph, at its depth: never read as a child of the piece before.
      expect(rest).toHaveLength(1);
      expect(rest[0]).toMatch(/^ {4}\S/);
    }
  });
});

describe("o200k's pieces", () => {
  /** tiktoken's o200k_base pattern, as JavaScript writes it: what the scanner must agree with. */
  const PATTERN =
    /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
  /** 3,000 texts of up to `longest` characters of `alphabet`, the same each run (a seeded LCG). */
  const randomTexts = (seed: number, alphabet: string, longest: number) => {
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    return Array.from({ length: 3_000 }, () => {
      let text = "";
      for (let k = Math.floor(next() * longest); k > 0; k--)
        text += alphabet[Math.floor(next() * alphabet.length)];
      return text;
    });
  };
  const piecesOf = (text: string) => {
    const out: string[] = [];
    eachPiece(text, (p) => out.push(p));
    return out;
  };

  it("cuts ASCII text (by its scanner) exactly as the pattern does, and loses nothing", () => {
    for (const text of randomTexts(7, "aZb9 \n\r\t.'s/(-_X1ll'dve\"", 40)) {
      expect(piecesOf(text), JSON.stringify(text)).toEqual(
        [...text.matchAll(PATTERN)].map((m) => m[0]),
      );
    }
    const outline = '  [12] link "Home"\n  heading "HTMLParser\'s camelCase 1234567"\n\n   x';
    expect(piecesOf(outline).join("")).toBe(outline);
    expect(piecesOf(outline)).toEqual([...outline.matchAll(PATTERN)].map((m) => m[0]));
  });

  it("prices ASCII text in one pass exactly as its pieces priced one by one", () => {
    const texts = [
      '  [12] link "Home"\n  heading "HTMLParser\'s camelCase 1234567"\n\n   x',
      ...randomTexts(11, "aZb9 \n\r\t.'s/(-_X1ll'dve\"]#", 60),
    ];
    for (const text of texts) {
      let byPiece = 0;
      eachPiece(text, (piece) => {
        byPiece += pieceTokens(piece);
      });
      expect(asciiTokens(text), JSON.stringify(text)).toBeCloseTo(byPiece, 9);
    }
  });

  it("cuts other text by the pattern", () => {
    const text = "Сегодня 東京の天気 🙂🚀 naïve café";
    expect(piecesOf(text)).toEqual([...text.matchAll(PATTERN)].map((m) => m[0]));
  });
});
