/**
 * The action cache: act replayed from cacheDir (no model call: the element is waited for,
 * checked against its recorded identity, then clicked) next to the same click in plain
 * Playwright, in the same run; the first, uncached act with an instant model is shown too.
 * Then the agent's three-page task (search the tea shop, open the result) replayed from
 * cacheDir next to the same task as a plain Playwright script, and the uncached run.
 * Goals (issue 16): a cached act replay at most 1.1× plain Playwright; a cached agent replay at
 * most 1.2× the plain script.
 *
 *   npm run bench:cache            BENCH_RUNS=30 npm run bench:cache
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setupServer } from "msw/node";
import { Client } from "../lib/index.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { teaAgent, teaExecutionModel } from "../test/support/llm/teaAgent.js";
import { median } from "./median.js";
import { timedOnQuietPage } from "./quietTiming.js";
import { startBenchServer } from "./snapshot/server.js";
import { teaScript } from "./teaScript.js";

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
/** Each round in another order: whichever goes first in a round must not always be the same. */
async function inTurns(runs: (() => Promise<unknown>)[]): Promise<void> {
  const order = runs.map((run) => ({ run, at: Math.random() })).sort((a, b) => a.at - b.at);
  for (const { run } of order) await run();
}

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
    await inTurns([
      async () => replay.push(await time(() => client.act("add black tea to the cart"))),
      async () => plain.push(await time(() => pw.click("li:nth-child(2) button"))),
      async () => first.push(await time(() => uncached.act("add black tea to the cart"))),
    ]);
  }
  const [r, p, f] = [median(replay), median(plain), median(first)];

  // The agent's task: the first run records it; every later one replays it.
  model.resetHandlers(teaAgent(), teaExecutionModel());
  const start = `${server.origin}/fixtures/agent/search.html`;
  const TASK = "Find the price of oolong tea";
  const runAgent = async (on: Client) => {
    await on.context.activePage()!.goto(start);
    return time(async () => {
      const result = await on.agent().execute(TASK);
      if (result.message !== "The price is $6.40") throw new Error(`wrong: ${result.message}`);
    });
  };
  const runPlain = async () => {
    await pw.goto(start);
    return time(() => teaScript(pw));
  };
  await runAgent(client);
  await runAgent(uncached);
  await runPlain();
  const agentReplay: number[] = [];
  const agentPlain: number[] = [];
  const agentFirst: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await inTurns([
      async () => agentReplay.push(await runAgent(client)),
      async () => agentPlain.push(await runPlain()),
      async () => agentFirst.push(await runAgent(uncached)),
    ]);
  }
  const [ar, ap, af] = [median(agentReplay), median(agentPlain), median(agentFirst)];
  const row = (name: string, ms: number, base: number) =>
    `| ${name} | ${ms.toFixed(1)} | ${(ms / base).toFixed(2)}× |`;
  console.log(
    [
      `act with cacheDir, median of ${RUNS}, next to plain Playwright on the same page`,
      "",
      "| call | ms | × plain Playwright |",
      "| --- | ---: | ---: |",
      row("act replayed from the cache (goal ≤ 1.1×)", r, p),
      row("plain Playwright click", p, p),
      row("act uncached, instant model (reference)", f, p),
      "",
      `agent, three-page task, median of ${RUNS}, next to the same task as a plain Playwright script`,
      "",
      "| run | ms | × plain Playwright |",
      "| --- | ---: | ---: |",
      row("agent replayed from the cache (goal ≤ 1.2×)", ar, ap),
      row("plain Playwright script", ap, ap),
      row("agent uncached, instant model (reference)", af, ap),
    ].join("\n"),
  );
} finally {
  await client.close();
  await uncached.close();
  await server.close();
  model.close();
  rmSync(cacheDir, { recursive: true, force: true });
}
