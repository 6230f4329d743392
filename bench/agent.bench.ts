/**
 * The agent on two tasks of its tests, against an instantly answering model (msw, in-process),
 * in the same run:
 *   - before: the code of BEFORE_COMMIT (the agent before it acted on ids), with a model that
 *     names each action in words (its tools ask a second model to find the element);
 *   - words now: today's code with that same model (what trimming the prompt alone saves);
 *   - ids: today's code with a model that acts on the [id]s of the outline it read;
 *   - plain Playwright doing the same task on the same pages.
 * Per task: model calls, prompt tokens (o200k, every request: system prompt, tool definitions,
 * the conversation; the tools' own calls too), steps, and the overhead per step beyond the model
 * = (agent run − plain run) ÷ the agent's steps. Medians.
 * Goals (issue 21): ids ≤ 0.6× before's model calls and prompt tokens per task; overhead per
 * step under 30 ms.
 *
 *   npm run bench:agent            BENCH_RUNS=21 npm run bench:agent
 */
import { join } from "node:path";
import type { RequestHandler } from "msw";
import { setupServer } from "msw/node";
import type { Page } from "playwright-core";
import { Client } from "../lib/index.js";
import { teaAgent, teaAgentById, teaExecutionModel } from "../test/support/llm/teaAgent.js";
import {
  WORKSHOP_TASK,
  workshopByIdAgent,
  workshopExecutionModel,
  workshopWordsAgent,
} from "../test/support/llm/workshopAgent.js";
import { beforeTree } from "./beforeService.js";
import { median } from "./median.js";
import { startBenchServer } from "./snapshot/server.js";
import { teaScript } from "./teaScript.js";
import { workshopScript } from "./workshopScript.js";

/** The last commit before the agent acted on ids: the "before" of this bench. */
const BEFORE_COMMIT = "d115dc0";
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const tokenizerEntry = "gpt-tokenizer/encoding/o200k_base";
const { countTokens } = (await import(tokenizerEntry)) as { countTokens(text: string): number };

type ClientClass = typeof Client;
type Variant = "before" | "words now" | "ids";

/** Each variant's model answers at its own base URL: one msw server serves all three. */
const BASE: Record<Variant, string> = {
  before: "http://before.model.test/v1",
  "words now": "http://words.model.test/v1",
  ids: "http://ids.model.test/v1",
};

interface Task {
  name: string;
  start: string;
  instruction: string;
  variables?: Record<string, string>;
  handlers(variant: Variant): RequestHandler[];
  plain(pw: Page): Promise<unknown>;
  check(message: string): boolean;
}

const TASKS: Task[] = [
  {
    name: "tea (3 pages)",
    start: "agent/search.html",
    instruction: "Find the price of oolong tea",
    handlers: (v) =>
      v === "ids" ? [teaAgentById(BASE[v])] : [teaAgent(BASE[v]), teaExecutionModel(BASE[v])],
    plain: teaScript,
    check: (m) => m === "The price is $6.40",
  },
  {
    name: "workshop (list, dialog, dropdown, refusal)",
    start: "agent/workshops.html",
    instruction: WORKSHOP_TASK,
    variables: { email: "ada@example.com" },
    handlers: (v) =>
      v === "ids"
        ? [workshopByIdAgent(BASE[v])]
        : [workshopWordsAgent(BASE[v]), workshopExecutionModel(BASE[v])],
    plain: workshopScript,
    check: (m) => /^Registered for Saturday afternoon\. Confirmation code: TEA-\d{4}$/.test(m),
  },
];

/**
 * The bodies the model was sent during one run, counted once the run is over: tokenizing while
 * it runs would take the CPU from the run being timed.
 */
const bodies: Promise<string>[] = [];
// Each task's handlers are put in for its runs only: both tasks' scripts answer the same URLs.
const model = setupServer();
model.events.on("request:start", ({ request }) => {
  if (request.url.endsWith("/responses")) bodies.push(request.clone().text());
});
async function sentDuringRun(): Promise<{ calls: number; tokens: number }> {
  const sent = await Promise.all(bodies.splice(0));
  let tokens = 0;
  for (const raw of sent) {
    const body = JSON.parse(raw) as Record<string, unknown>;
    const text = [body.instructions, body.input, body.tools, body.text]
      .map((p) => (typeof p === "string" ? p : JSON.stringify(p ?? "")))
      .join("\n");
    tokens += countTokens(text);
  }
  return { calls: sent.length, tokens };
}
model.listen({ onUnhandledRequest: "bypass" });

/** The library as it was at BEFORE_COMMIT, unpacked beside this tree (it resolves our node_modules). */
async function beforeClient(): Promise<ClientClass | undefined> {
  try {
    const dir = beforeTree(BEFORE_COMMIT);
    const lib = (await import(join(dir, "lib", "index.ts"))) as { Client: ClientClass };
    return lib.Client;
  } catch (error) {
    console.log(
      `(no "before": ${BEFORE_COMMIT} is not in this clone: ${String(error).split("\n")[0]})`,
    );
    return undefined;
  }
}

const server = await startBenchServer();
const Before = await beforeClient();
const clients = new Map<Variant, InstanceType<ClientClass>>();
for (const variant of Object.keys(BASE) as Variant[]) {
  const Make = variant === "before" ? Before : Client;
  if (!Make) continue;
  const client = new Make({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-bench", baseURL: BASE[variant] },
  });
  await client.init();
  clients.set(variant, client);
}

interface Figures {
  ms: number[];
  /** The time inside model calls (the AI SDK, msw and the scripted answer). */
  modelMs: number[];
  steps: number[];
  calls: number[];
  tokens: number[];
}
const empty = (): Figures => ({ ms: [], modelMs: [], steps: [], calls: [], tokens: [] });

try {
  const out: string[] = [
    `agent, two tasks, instant model (msw), median of ${RUNS}; before = ${BEFORE_COMMIT}`,
  ];
  for (const task of TASKS) {
    model.resetHandlers(...(Object.keys(BASE) as Variant[]).flatMap((v) => task.handlers(v)));
    const figures = new Map<Variant, Figures>();
    const plain: number[] = [];
    const runAgent = async (variant: Variant, client: InstanceType<ClientClass>) => {
      const page = client.context.activePage()!;
      await page.goto(`${server.origin}/fixtures/${task.start}`);
      await new Promise((r) => setTimeout(r, 150));
      bodies.length = 0;
      const t0 = performance.now();
      const result = await client.agent().execute({
        instruction: task.instruction,
        variables: task.variables,
        maxSteps: 40,
      });
      const ms = performance.now() - t0;
      const sent = await sentDuringRun();
      if (!task.check(result.message)) {
        throw new Error(`${variant}, ${task.name}: wrong answer: ${result.message}`);
      }
      return {
        ms,
        steps: Number(result.metadata?.steps),
        modelMs: result.usage?.inference_time_ms ?? 0,
        ...sent,
      };
    };
    const runPlain = async () => {
      const pw = clients.get("ids")!.context.activePage()!.playwrightPage;
      await pw.goto(`${server.origin}/fixtures/${task.start}`);
      await new Promise((r) => setTimeout(r, 150));
      const t0 = performance.now();
      await task.plain(pw);
      return performance.now() - t0;
    };
    // One of each first, untimed: code paths and pages warm.
    for (const [variant, client] of clients) await runAgent(variant, client);
    await runPlain();
    for (let i = 0; i < RUNS; i++) {
      for (const [variant, client] of clients) {
        const run = await runAgent(variant, client);
        const f = figures.get(variant) ?? empty();
        f.ms.push(run.ms);
        f.modelMs.push(run.modelMs);
        f.steps.push(run.steps);
        f.calls.push(run.calls);
        f.tokens.push(run.tokens);
        figures.set(variant, f);
      }
      plain.push(await runPlain());
    }
    const base = figures.get("before");
    const ratio = (mine: number, theirs: number | undefined) =>
      theirs ? `${(mine / theirs).toFixed(2)}×` : "–";
    out.push(
      "",
      `### ${task.name}`,
      "",
      "| | steps | model calls | × before | prompt tokens | × before | run ms | in model calls ms | overhead per step ms | beyond the model calls ms |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const [variant, f] of figures) {
      const steps = median(f.steps);
      const perStep = (median(f.ms) - median(plain)) / steps;
      const beyond = (median(f.ms.map((ms, i) => ms - f.modelMs[i]!)) - median(plain)) / steps;
      out.push(
        `| ${variant} | ${steps} | ${median(f.calls)} | ${ratio(median(f.calls), base && median(base.calls))} | ${median(f.tokens)} | ${ratio(median(f.tokens), base && median(base.tokens))} | ${median(f.ms).toFixed(0)} | ${median(f.modelMs).toFixed(0)} | ${perStep.toFixed(1)} | ${beyond.toFixed(1)} |`,
      );
    }
    out.push(`| plain Playwright | | | | | | ${median(plain).toFixed(0)} | | | |`);
  }
  console.log(out.join("\n"));
} finally {
  for (const client of clients.values()) await client.close();
  await server.close();
  model.close();
}
