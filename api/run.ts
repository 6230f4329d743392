/**
 * The scheduled function: `GET /api/run` from the platform's cron, `POST /api/run` from anyone
 * else (an optional JSON body `{url?, act?, extract?}` overrides the job for one run), both with
 * `Authorization: Bearer <CRON_SECRET>`. It runs the job of job.config.ts (as the environment
 * overrides it) inside the function's 60 seconds and answers `{ok: true, data}` or
 * `{ok: false, error}`, with the steps' timings in a Server-Timing header and a one-line JSON
 * log summary. A bad body, or a body URL the job may not open, is a 400.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { job } from "../job.config.js";
import { codeOf, NavigationRefusedError, ServiceValidationError } from "../lib/errors.js";
import { resolveJob } from "../lib/job/definition.js";
import { failureMessage } from "../lib/job/failureMessage.js";
import { type JobResult, runJob } from "../lib/job/runJob.js";
import { type ResultPayload, sendResult } from "../lib/job/webhook.js";
import { Redactor } from "../lib/log.js";
import { V3OptionsSchema, type Variables } from "../lib/options.js";
import { rawDetail } from "../lib/readableError.js";
import { secretsOf, urlSecrets } from "../lib/secrets.js";
import { hideVariables } from "../lib/variables.js";

type Answer = { ok: true; data: string } | { ok: false; error: string };

/** vercel.json's maxDuration: no run's budget goes above it. */
export const MAX_DURATION_MS = 60_000;

export function GET(request: Request): Promise<Response> {
  return run(request);
}

export function POST(request: Request): Promise<Response> {
  return run(request);
}

async function run(request: Request): Promise<Response> {
  const secret = process.env.CRON_SECRET;
  if (!secret && process.env.VERCEL) {
    return answer(500, {
      ok: false,
      error: "CRON_SECRET is not set on this deployment: it refuses to run",
    });
  }
  if (secret && !bearerMatches(request.headers.get("authorization"), secret)) {
    return answer(401, {
      ok: false,
      error: "missing or wrong Authorization: Bearer <CRON_SECRET>",
    });
  }
  const redactor = new Redactor([secret, ...secretsOf(V3OptionsSchema.parse({ env: "LOCAL" }))]);
  let result: JobResult | undefined;
  let last: { step?: string; url?: string; screenshot?: Buffer } = {};
  let budgetMs: number | undefined;
  let variables: Variables | undefined;
  let bodyUrl: unknown;
  // A typed value can come back in a page's URL or in Playwright's raw text: `%name%` there.
  const clean = (text: string) => hideVariables(redactor.text(text), variables);
  const started = Date.now();
  try {
    const body = request.method === "POST" ? await readBody(request) : undefined;
    const definition = resolveJob(job, process.env, body);
    for (const s of urlSecrets(definition.url)) redactor.add(s);
    bodyUrl = (body as { url?: unknown } | undefined)?.url;
    variables = definition.variables;
    budgetMs = Math.min(definition.budgetMs ?? MAX_DURATION_MS, MAX_DURATION_MS);
    result = await runJob(definition, { budgetMs, onFailure: (seen) => (last = seen) });
    summary(true, result);
    await report({ ok: true, data: result.data, timings: result.timings }, started);
    return answer(200, { ok: true, data: result.data }, result.timings);
  } catch (error) {
    // One readable line for the answer and the webhook; the raw text only in a debug line.
    const message = clean(failureMessage(error, { step: last.step, budgetMs }));
    summary(false, result, message);
    debug(clean(rawDetail(error)));
    await report(
      {
        ok: false,
        error: message,
        url: last.url ? clean(last.url) : undefined,
        screenshot: last.screenshot?.toString("base64"),
      },
      started,
    );
    // Told apart by code, as an error from a remote engine is. A page the body names that the
    // job may not open (the navigation policy, the egress guard: refused before any browser
    // starts) is the caller's mistake; the same page in JOB_URL or job.config.ts is the deployment's.
    const code = codeOf(error);
    const status =
      (code === ServiceValidationError.code &&
        (error as ServiceValidationError).where === "request body") ||
      (code === NavigationRefusedError.code &&
        bodyUrl !== undefined &&
        (error as NavigationRefusedError).url === bodyUrl)
        ? 400
        : 500;
    return answer(status, { ok: false, error: message });
  }
}

/** RESULT_WEBHOOK_URL, when set: the answer goes there too, within what is left of 60 s. */
async function report(payload: ResultPayload, started: number): Promise<void> {
  const url = process.env.RESULT_WEBHOOK_URL;
  if (!url) return;
  const left = MAX_DURATION_MS - WEBHOOK_MARGIN_MS - (Date.now() - started);
  const delivered = await sendResult(url, process.env.RESULT_WEBHOOK_SECRET, payload, left);
  if (!delivered) console.log(JSON.stringify({ job: "webhook", delivered: false }));
}

/** What the answer itself still needs once the webhook is done. */
const WEBHOOK_MARGIN_MS = 1_000;

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceValidationError("request body", [{ path: [], message: "expected JSON" }]);
  }
}

/** Compares digests, so the time taken says nothing about the secret or its length. */
function bearerMatches(header: string | null, secret: string): boolean {
  const given = header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(secret)) && given.length > 0;
}

function answer(status: number, body: Answer, timings?: Record<string, number>): Response {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (timings) {
    headers["server-timing"] = Object.entries(timings)
      .map(([step, ms]) => `${step};dur=${ms}`)
      .join(", ");
  }
  return Response.json(body, { status, headers });
}

/** Everything the error said (Playwright's call log included), for whoever debugs a run. */
function debug(detail: string): void {
  console.debug(JSON.stringify({ job: "run", level: "debug", detail }));
}

/** One JSON line per run: what a platform's log view shows. */
function summary(ok: boolean, result: JobResult | undefined, error?: string): void {
  console.log(
    JSON.stringify({ job: "run", ok, timings: result?.timings, tokens: result?.tokens, error }),
  );
}
