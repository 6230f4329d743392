/**
 * The agent on the three-page task of its tests (search the tea shop, open the result, read the
 * price), against an instantly answering model (msw, in-process), next to the same task done
 * with plain Playwright on the same pages in the same run. Overhead per step = (agent run −
 * plain run) ÷ the agent's steps: what Wayfarer adds per step (the loop, the tools' settling,
 * outlines, prompts, the model layer, acting). Also the prompt tokens (o200k) each agent step
 * sends: system prompt, tool definitions and the conversation so far.
 * Goal (issue 7): overhead under 200 ms per step, median.
 *
 *   npm run bench:agent            BENCH_RUNS=20 npm run bench:agent
 */
import { setupServer } from "msw/node";
import { Client } from "../lib/index.js";
import { asModelRequest } from "../test/support/llm/modelServer.js";
import { teaAgent, teaExecutionModel } from "../test/support/llm/teaAgent.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";
import { teaScript } from "./teaScript.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const tokenizerEntry = "gpt-tokenizer/encoding/o200k_base";
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

const stepPrompts: number[][] = [];
const toolPrompts: number[] = [];
const model = setupServer(teaAgent(), teaExecutionModel());
model.events.on("request:start", async ({ request }) => {
  if (!request.url.includes("/responses")) return;
  const { body } = await asModelRequest(request.clone());
  const text = [body.instructions, body.input, body.tools, body.text]
    .map((p) => (typeof p === "string" ? p : JSON.stringify(p ?? "")))
    .join("\n");
  if (Array.isArray(body.tools)) stepPrompts.at(-1)?.push(countTokens(text));
  else toolPrompts.push(countTokens(text));
});
model.listen({ onUnhandledRequest: "bypass" });

const server = await startBenchServer();
const client = new Client({
  env: "LOCAL",
  verbose: 0,
  disablePino: true,
  model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench" },
});

try {
  await client.init();
  const page = client.context.activePage()!;
  const pw = page.playwrightPage;
  const start = `${server.origin}/fixtures/agent/search.html`;
  const agent = client.agent();
  const ours: number[] = [];
  const plain: number[] = [];
  const steps: number[] = [];
  const byTool = new Map<string, number[]>();

  const runAgent = async () => {
    await page.goto(start);
    await new Promise((r) => setTimeout(r, 150));
    stepPrompts.push([]);
    const t0 = performance.now();
    const result = await agent.execute("Find the price of oolong tea");
    const ms = performance.now() - t0;
    if (result.message !== "The price is $6.40") throw new Error(`wrong answer: ${result.message}`);
    for (const a of result.actions) {
      byTool.set(a.type, [...(byTool.get(a.type) ?? []), a.timeMs ?? 0]);
    }
    return { ms, steps: Number(result.metadata?.steps) };
  };
  // The same task as a script that already knows the page: type, search, open, read.
  const runPlain = async () => {
    await pw.goto(start);
    await new Promise((r) => setTimeout(r, 150));
    const t0 = performance.now();
    await teaScript(pw);
    return performance.now() - t0;
  };

  await runAgent();
  await runPlain();
  stepPrompts.length = 0;
  toolPrompts.length = 0;
  byTool.clear();
  for (let i = 0; i < RUNS; i++) {
    const run = await runAgent();
    ours.push(run.ms);
    steps.push(run.steps);
    plain.push(await runPlain());
  }
  const n = median(steps);
  const perStep = (median(ours) - median(plain)) / n;
  const tokensByStep = Array.from({ length: n }, (_, i) =>
    median(stepPrompts.map((p) => p[i] ?? 0)),
  );
  const out = [
    `agent, three-page task (search, open the result, read the price), instant model (msw), median of ${RUNS}`,
    "",
    "| | ms |",
    "| --- | ---: |",
    `| agent run (${n} steps) | ${median(ours).toFixed(0)} |`,
    `| plain Playwright, same task | ${median(plain).toFixed(0)} |`,
    `| overhead per step (goal < 200) | ${perStep.toFixed(1)} |`,
    "",
    "| tool | median ms per call |",
    "| --- | ---: |",
    ...[...byTool].map(([tool, times]) => `| ${tool} | ${median(times).toFixed(1)} |`),
    "",
    `prompt tokens (o200k) per agent step, steps 1–${n}: ${tokensByStep.join(", ")} (median ${median(tokensByStep)})`,
    `prompt tokens of the tools' own act/extract calls: median ${median(toolPrompts)}, max ${Math.max(...toolPrompts)}`,
  ];
  console.log(out.join("\n"));
} finally {
  await client.close();
  await server.close();
  model.close();
}
