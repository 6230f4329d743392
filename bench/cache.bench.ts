/**
 * The action cache: act replayed from cacheDir (no model call: the element is waited for,
 * checked against its recorded identity, then clicked) next to the same click in plain
 * Playwright, in the same run; the first, uncached act with an instant model is shown too.
 * Goal (issue 16): a cached act replay at most 1.1× plain Playwright.
 *
 *   npm run bench:cache            BENCH_RUNS=30 npm run bench:cache
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setupServer } from "msw/node";
import { Client } from "../lib/index.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { median } from "./median.js";
import { timedOnQuietPage } from "./quietTiming.js";
import { startBenchServer } from "./snapshot/server.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const model = setupServer(shopModel());
model.listen({ onUnhandledRequest: "bypass" });
const server = await startBenchServer();
const cacheDir = mkdtempSync(join(tmpdir(), "wayfarer-bench-cache-"));
const client = new Client({
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench" },
  cacheDir,
});
const uncached = new Client({
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench" },
});
const time = timedOnQuietPage;

try {
  await Promise.all([client.init(), uncached.init()]);
  const url = `${server.origin}/fixtures/outline/shop.html`;
  await client.context.activePage()!.goto(url);
  await uncached.context.activePage()!.goto(url);
  const pw = client.context.activePage()!.playwrightPage;
  // The first act records the entry; every later one replays it.
  await client.act("add black tea to the cart");
  await uncached.act("add black tea to the cart");
  const replay: number[] = [];
  const plain: number[] = [];
  const first: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    replay.push(await time(() => client.act("add black tea to the cart")));
    plain.push(await time(() => pw.click("li:nth-child(2) button")));
    first.push(await time(() => uncached.act("add black tea to the cart")));
  }
  const [r, p, f] = [median(replay), median(plain), median(first)];
  console.log(
    [
      `act with cacheDir, median of ${RUNS}, next to plain Playwright on the same page`,
      "",
      "| call | ms | × plain Playwright |",
      "| --- | ---: | ---: |",
      `| act replayed from the cache (goal ≤ 1.1×) | ${r.toFixed(1)} | ${(r / p).toFixed(2)}× |`,
      `| plain Playwright click | ${p.toFixed(1)} | 1.00× |`,
      `| act uncached, instant model (reference) | ${f.toFixed(1)} | ${(f / p).toFixed(2)}× |`,
    ].join("\n"),
  );
} finally {
  await client.close();
  await uncached.close();
  await server.close();
  model.close();
  rmSync(cacheDir, { recursive: true, force: true });
}
