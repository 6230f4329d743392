/**
 * The scheduled function: `GET /api/run` from the platform's cron, `POST /api/run` from anyone
 * else, both with `Authorization: Bearer <CRON_SECRET>`. Until the full job lands (act + extract
 * inside the 60-second budget) it runs the demo job: open JOB_URL, answer with the page title.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { describePage } from "../lib/job/describePage.js";
import { Redactor } from "../lib/log.js";
import { urlSecrets } from "../lib/secrets.js";

type Answer = { ok: true; data: string } | { ok: false; error: string };

/** The platform stops the function at 60 s; this leaves room for a forced close and the answer. */
const BUDGET_MS = 50_000;

export function GET(request: Request): Promise<Response> {
  return run(request);
}

export function POST(request: Request): Promise<Response> {
  return run(request);
}

async function run(request: Request): Promise<Response> {
  const secret = process.env.CRON_SECRET;
  if (!secret)
    return answer(500, { ok: false, error: "CRON_SECRET is not set on this deployment" });
  if (!bearerMatches(request.headers.get("authorization"), secret)) {
    return answer(401, {
      ok: false,
      error: "missing or wrong Authorization: Bearer <CRON_SECRET>",
    });
  }
  const url = process.env.JOB_URL;
  if (!url) return answer(500, { ok: false, error: "JOB_URL is not set on this deployment" });
  try {
    const page = await describePage(url, { budgetMs: BUDGET_MS });
    return answer(200, { ok: true, data: page.title });
  } catch (error) {
    // The URL itself may carry a credential, and most errors quote the URL.
    const redactor = new Redactor([secret, ...urlSecrets(url)]);
    const message = error instanceof Error ? error.message : String(error);
    return answer(500, { ok: false, error: redactor.text(message) });
  }
}

/** Compares digests, so the time taken says nothing about the secret or its length. */
function bearerMatches(header: string | null, secret: string): boolean {
  const given = header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(secret)) && given.length > 0;
}

function answer(status: number, body: Answer): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
