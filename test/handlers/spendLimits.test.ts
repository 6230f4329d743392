/**
 * Model spend inside one call is bounded: a 4 MB page costs at most `maxChunksPerCall` model
 * calls per act, observe or extract, and a token cap is checked before every model call. The
 * scripted model finds nothing (as on a page that hides what was asked for) and reports usage
 * in proportion to what it was sent, as a real one does.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TokenCapError } from "../../lib/errors.js";
import type { LogLine } from "../../lib/index.js";
import { runJob } from "../../lib/job/runJob.js";
import { engineInternals, useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { type ModelRequest, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-spend-test-key-123456" };

/**
 * What a provider bills, about: o200k counts this page's outline at 4.18 characters a token
 * (gpt-tokenizer 4.0.0, measured), a little more for the prompt's instructions: 4.
 */
const usageOf = (r: ModelRequest) => ({ input: Math.ceil(promptOf(r).length / 4), output: 20 });
const findsNothing = openaiResponses(
  () => ({ elements: [], extraction: null, price: null }),
  undefined,
  usageOf,
);
const spentBy = (requests: ModelRequest[]) =>
  requests.reduce((sum, r) => sum + usageOf(r).input + usageOf(r).output, 0);

/** The huge page, or a smaller one (still dozens of chunks) where size is not the point. */
const open = (options: Record<string, unknown> = {}, items = 20_000) =>
  clients.openOn(server.url(`outline/huge.html?items=${items}`), { model: MODEL, ...options });

describe("spend limits inside a call", () => {
  it("a 4 MB page costs at most maxChunksPerCall model calls per act, observe and extract", async () => {
    model.use(findsNothing);
    const lines: LogLine[] = [];
    const client = await open({ verbose: 1, logger: (l: LogLine) => lines.push(l) });
    const page = client.context.activePage()!;
    expect(await page.evaluate("document.body.innerHTML.length")).toBeGreaterThan(4_000_000);

    const acted = await client.act("click the Unicorn button");
    expect(acted.success).toBe(false);
    expect(model.requests()).toHaveLength(8);
    await client.observe("the Unicorn button");
    expect(model.requests()).toHaveLength(16);
    await client.extract("the price of the unicorn", z.object({ price: z.string().nullable() }));
    expect(model.requests()).toHaveLength(24);
    const warnings = lines.filter((l) => l.message === "the page is too large to read whole");
    expect(warnings.map((w) => w.category)).toEqual(["act", "observe", "extract"]);
    // Dozens of parts (about 80 at the default budget), eight read.
    expect(Number(warnings[0]!.auxiliary?.parts)).toBeGreaterThan(50);
  });

  it("maxChunksPerCall sets the cap", async () => {
    model.use(findsNothing);
    const client = await open({ maxChunksPerCall: 3 }, 3_000);
    await client.act("click the Unicorn button");
    expect(model.requests()).toHaveLength(3);
  });

  it("tokenCap is checked before every model call: the call that would pass it is not made", async () => {
    model.use(findsNothing);
    const cap = 50_000;
    const client = await open({ tokenCap: cap }, 3_000);
    const error = await failure(client.act("click the Unicorn button"));
    expect(error).toBeInstanceOf(TokenCapError);
    expect(error.message).toContain(`of a cap of ${cap}`);
    const metrics = await client.metrics;
    expect(metrics.totalPromptTokens + metrics.totalCompletionTokens).toBeLessThanOrEqual(cap);
    // Stopped partway: more than one call made, fewer than the chunk cap.
    expect(model.requests().length).toBeGreaterThan(1);
    expect(model.requests().length).toBeLessThan(8);
  });

  it("the job's token cap stops a step before the call that would pass it", async () => {
    model.use(findsNothing);
    const tokenCap = 60_000;
    const error = await failure(
      runJob(
        {
          url: server.url("outline/huge.html?items=3000"),
          act: "click the Unicorn button",
          model: MODEL,
        },
        { tokenCap, clientInternals: engineInternals },
      ),
    );
    expect(error).toBeInstanceOf(TokenCapError);
    expect(spentBy(model.requests())).toBeLessThanOrEqual(tokenCap);
  });
});
