/**
 * `npm run bench:tokens`: the library's token estimate (lib/tokens.ts, by script) against
 * o200k's count of the same text, on the visible text of every corpus page, beside the flat
 * estimate it replaced (characters ÷ 3.2). An estimate under 1.00× lets a chunk or a call pass
 * its token budget; the further over, the smaller the chunks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { estimateTokens } from "../lib/tokens.js";
import { CORPUS_DIR } from "./corpus/corpusServer.js";

const tokenizerEntry = "gpt-tokenizer/encoding/o200k_base";
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

/** What a reader sees of a saved page, roughly: no scripts, styles or tags, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16)),
    )
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/\s+/g, " ")
    .slice(0, 200_000);
}

const rows: { page: string; now: number; flat: number }[] = [];
for (const page of readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith(".html"))
  .sort()) {
  const text = visibleText(readFileSync(join(CORPUS_DIR, page), "utf8"));
  const real = countTokens(text);
  if (real === 0) continue;
  rows.push({ page, now: estimateTokens(text) / real, flat: Math.ceil(text.length / 3.2) / real });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const under = (key: "now" | "flat") => rows.filter((r) => r[key] < 1);
console.log(`${rows.length} corpus pages, estimate ÷ o200k tokens of their visible text`);
console.log(
  `  by script (lib/tokens.ts): median ${median(rows.map((r) => r.now)).toFixed(2)}×, lowest ${Math.min(...rows.map((r) => r.now)).toFixed(2)}×, under 1.00× on ${under("now").length}`,
);
console.log(
  `  flat ÷ 3.2 (before):       median ${median(rows.map((r) => r.flat)).toFixed(2)}×, lowest ${Math.min(...rows.map((r) => r.flat)).toFixed(2)}×, under 1.00× on ${under("flat").length}`,
);
for (const r of [...rows].sort((a, b) => a.flat - b.flat).slice(0, 5)) {
  console.log(`  ${r.page.padEnd(36)} now ${r.now.toFixed(2)}×  flat ${r.flat.toFixed(2)}×`);
}
