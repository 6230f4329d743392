/**
 * act and extract against an instantly answering model (msw, in-process), next to the same
 * work done with plain Playwright on the same page in the same run: what Wayfarer adds per call
 * (settling, the outline, building the prompt, the model layer, mapping the answer, acting).
 * Also the prompt each call sent, in o200k tokens. Goal (issue 5): overhead under 150 ms median.
 *
 *   npm run bench:act            BENCH_RUNS=20 npm run bench:act
 */
import { setupServer } from "msw/node";
import { z } from "zod";
import { Client } from "../lib/index.js";
import { idOfLine, promptOf } from "../test/support/llm/modelServer.js";
import { openaiResponses } from "../test/support/llm/openai.js";
import { median } from "./median.js";
import { timedOnQuietPage } from "./quietTiming.js";
import { startBenchServer } from "./snapshot/server.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const tokenizerEntry = "gpt-tokenizer/encoding/o200k_base";
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

const prompts: string[] = [];
const model = setupServer(
  openaiResponses((request) => {
    const prompt = promptOf(request);
    prompts.push(prompt);
    if (prompt.includes("Instruction: The one element")) {
      const lines = prompt.split("\n");
      const start = lines.findIndex((l) => l.includes('link "Black tea"'));
      const id = idOfLine(lines.slice(start).join("\n"), 'button "Add to cart"');
      return {
        elements: [{ elementId: id, description: "add black tea", method: "click", arguments: [] }],
      };
    }
    return {
      products: ["Green tea", "Black tea", "White tea", "Oolong"].map((name) => ({
        name,
        link: idOfLine(prompt, `link "${name}"`),
      })),
    };
  }),
);
model.listen({ onUnhandledRequest: "bypass" });

const server = await startBenchServer();
const client = new Client({
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench" },
});
const time = timedOnQuietPage;

try {
  await client.init();
  const page = client.context.activePage()!;
  await page.goto(`${server.origin}/fixtures/outline/shop.html`);
  const pw = page.playwrightPage;
  const Products = z.object({ products: z.array(z.object({ name: z.string(), link: z.url() })) });
  const rows: { name: string; ours: number[]; plain: number[]; tokens: number[] }[] = [
    { name: "act: click the right Add to cart", ours: [], plain: [], tokens: [] },
    { name: "extract: 4 products with links", ours: [], plain: [], tokens: [] },
  ];
  // One warm-up each, then both, in turn.
  await client.act("add black tea to the cart");
  await client.extract("the products", Products);
  for (let i = 0; i < RUNS; i++) {
    prompts.length = 0;
    rows[0]!.ours.push(await time(() => client.act("add black tea to the cart")));
    rows[0]!.tokens.push(countTokens(prompts.join("\n")));
    rows[0]!.plain.push(await time(() => pw.click("li:nth-child(2) button")));
    prompts.length = 0;
    rows[1]!.ours.push(await time(() => client.extract("the products", Products)));
    rows[1]!.tokens.push(countTokens(prompts.join("\n")));
    rows[1]!.plain.push(
      await time(() =>
        pw.$$eval("li", (items) =>
          items.map((li) => ({
            name: li.querySelector("a")!.textContent,
            link: li.querySelector("a")!.href,
          })),
        ),
      ),
    );
  }
  const out = [
    `act/extract with an instant model (msw), median of ${RUNS}, next to plain Playwright on the same page`,
    "",
    "| call | Wayfarer ms | plain Playwright ms | overhead ms (goal < 150) | prompt tokens (o200k) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map((r) => {
      const ours = median(r.ours);
      const plain = median(r.plain);
      return `| ${r.name} | ${ours.toFixed(1)} | ${plain.toFixed(1)} | ${(ours - plain).toFixed(1)} | ${median(r.tokens)} |`;
    }),
  ];
  console.log(out.join("\n"));
} finally {
  await client.close();
  await server.close();
  model.close();
}
