/**
 * `npm run bench:tokens`: the library's token estimate (lib/tokens.ts) against o200k's count.
 *
 * 1. Paragraphs of 15 languages and emoji-heavy posts (bench/tokenSamples.json): each
 *    paragraph's estimate ÷ o200k.
 * 2. Every corpus page's outline as a capture gives it (the library's extract() of the page,
 *    LOCAL, the corpus' offline switches): the whole outline's estimate ÷ o200k, and each part
 *    of it cut at a budget of 12,000 (the default) and of 1,000 tokens counted with o200k:
 *    the largest part ÷ its budget, which must not pass 1.00.
 *
 * Beside them, the flat characters ÷ 3.2 the estimate by script replaced.
 *
 *   npm run bench:tokens           BENCH_PAGES=20 for the first 20 corpus pages
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "../lib/index.js";
import { chunkOutline } from "../lib/snapshot/chunks.js";
import type { OutlineLine } from "../lib/snapshot/outline.js";
import { estimateTokens } from "../lib/tokens.js";
import { startCorpusServer } from "./corpus/corpusServer.js";
import { median } from "./median.js";

const tokenizerEntry = "gpt-tokenizer/encoding/o200k_base";
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };
const flat = (text: string) => Math.ceil(text.length / 3.2);
const within = (ratio: number) => ratio >= 0.9 && ratio <= 1.1;

const samples = JSON.parse(
  readFileSync(join(import.meta.dirname, "tokenSamples.json"), "utf8"),
) as Record<string, string[]>;
console.log("paragraphs, estimate ÷ o200k (flat ÷ 3.2 in brackets)");
const sampleRatios: number[] = [];
for (const [language, paragraphs] of Object.entries(samples)) {
  const cells = paragraphs.map((text) => {
    const real = countTokens(text);
    const ratio = estimateTokens(text) / real;
    sampleRatios.push(ratio);
    return `${real} tokens ${ratio.toFixed(2)}× (${(flat(text) / real).toFixed(2)}×)`;
  });
  console.log(`  ${language.padEnd(6)} ${cells.join("   ")}`);
}
console.log(
  `  within 10 %: ${sampleRatios.filter(within).length} of ${sampleRatios.length}; lowest ${Math.min(...sampleRatios).toFixed(2)}×, highest ${Math.max(...sampleRatios).toFixed(2)}×`,
);

const corpus = await startCorpusServer();
if (!corpus) {
  console.log("no corpus at ../shared/corpus/pages: the outlines are not measured");
  process.exit(0);
}
const pages = corpus.pages.slice(0, Number(process.env.BENCH_PAGES ?? corpus.pages.length));
const client = new Client({
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  localBrowserLaunchOptions: {
    args: [
      ...corpus.browserArgs,
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
});
await client.init();
const page = client.context.activePage()!;
const rows: { page: string; now: number; flat: number; worstPart: number; parts: number }[] = [];
try {
  for (const name of pages) {
    try {
      await page.goto(corpus.url(name), { waitUntil: "load", timeout: 30_000 });
      const text = (await client.extract()).pageText;
      const real = countTokens(text);
      if (!real) continue;
      // The outline's lines as the chunker gets them: its text, one line each, page order.
      const lines: OutlineLine[] = text.split("\n").map((line) => ({ text: line, top: 0 }));
      let worstPart = 0;
      let parts = 0;
      for (const budget of [12_000, 1_000]) {
        for (const chunk of chunkOutline(lines, budget)) {
          worstPart = Math.max(worstPart, countTokens(chunk.text) / budget);
          parts++;
        }
      }
      rows.push({
        page: name,
        now: estimateTokens(text) / real,
        flat: flat(text) / real,
        worstPart,
        parts,
      });
    } catch (error) {
      console.log(`  ${name}: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
    }
  }
} finally {
  await client.close();
  await corpus.close();
}
const lowest = (key: "now" | "flat") => Math.min(...rows.map((r) => r[key]));
console.log(`\n${rows.length} corpus pages' outlines, estimate ÷ o200k`);
console.log(
  `  by pieces (lib/tokens.ts): median ${median(rows.map((r) => r.now)).toFixed(2)}×, lowest ${lowest("now").toFixed(2)}×, highest ${Math.max(...rows.map((r) => r.now)).toFixed(2)}×, within 10 % on ${rows.filter((r) => within(r.now)).length}`,
);
console.log(
  `  flat ÷ 3.2 (before):       median ${median(rows.map((r) => r.flat)).toFixed(2)}×, lowest ${lowest("flat").toFixed(2)}×, highest ${Math.max(...rows.map((r) => r.flat)).toFixed(2)}×, within 10 % on ${rows.filter((r) => within(r.flat)).length}`,
);
const worst = [...rows].sort((a, b) => b.worstPart - a.worstPart);
console.log(
  `  parts at budgets 12,000 and 1,000: ${rows.reduce((n, r) => n + r.parts, 0)}; the largest is ${(worst[0]!.worstPart * 100).toFixed(1)} % of its budget in o200k tokens (${worst[0]!.page}); over the budget: ${rows.filter((r) => r.worstPart > 1).length} pages`,
);
for (const r of [...rows].sort((a, b) => Math.abs(b.now - 1) - Math.abs(a.now - 1)).slice(0, 6)) {
  console.log(`  ${r.page.padEnd(36)} ${r.now.toFixed(2)}× (flat ${r.flat.toFixed(2)}×)`);
}
