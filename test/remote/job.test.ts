/**
 * The job as the template card draws it: with WAYFARER_API_KEY set, runJob takes the remote
 * environment by itself, inside its budget, and ends the session on every path (done, failed,
 * out of time), with no browser left.
 */
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveJob } from "../../lib/job/definition.js";
import { runJob } from "../../lib/job/runJob.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { failure } from "../support/failure.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { shopModel } from "../support/llm/shopModel.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
// No server cache: each run asks the model (a cached act would not meet the failing model).
const service = useService({ serverCache: false });

let restore: () => void;
beforeEach(() => {
  restore = restoreEnvAfterwards();
  process.env.WAYFARER_API_KEY = KEYS.alpha;
  process.env.WAYFARER_API_URL = service.url;
});
afterEach(() => restore());

const job = (extra: Record<string, unknown> = {}) =>
  resolveJob(
    {
      url: server.url("outline/shop.html"),
      act: "add black tea to the cart",
      extract: "what is in the cart",
      model: { modelName: "openai/gpt-4.1-mini", apiKey: "sk-remote-job-123456" },
      ...extra,
    },
    {},
  );

describe("the job through the service", () => {
  it("runs on a session of the service when WAYFARER_API_KEY is set, and ends it", async () => {
    model.use(shopModel());
    const started: string[] = [];
    const result = await runJob(job(), { onStep: (s) => started.push(s) });
    expect(result.data).toBe("Cart: black");
    expect(started).toEqual(["init", "goto", "act", "extract", "close"]);
    // The service's replay of the run was the remote one: two model calls on the service.
    expect(model.requests()).toHaveLength(2);
    expect(service.service.sessions.size).toBe(0);
  });

  it("ends the session when a step fails", async () => {
    model.use(
      http.post("https://api.openai.com/v1/responses", () =>
        HttpResponse.json({ error: { message: "model not found" } }, { status: 404 }),
      ),
    );
    const error = await failure(runJob(job()));
    // The service tells a provider's failure by its status, never the provider's body.
    expect((error as Error).message).toContain("HTTP 404");
    expect(service.service.sessions.size).toBe(0);
  });

  it("ends the session when the budget runs out, within the budget", async () => {
    // A model that answers only when its request is given up on.
    model.use(
      http.post("https://api.openai.com/v1/responses", ({ request }) => {
        return new Promise<Response>((resolve) =>
          request.signal.addEventListener("abort", () => resolve(HttpResponse.json({}))),
        );
      }),
    );
    const budgetMs = 9_000;
    const t0 = Date.now();
    const error = await failure(runJob(job(), { budgetMs }));
    expect((error as Error).name).toBe("ServiceTimeoutError");
    expect(Date.now() - t0).toBeLessThan(budgetMs);
    // The session's end was asked for before the answer.
    expect(service.service.sessions.size).toBe(0);
  });
});
