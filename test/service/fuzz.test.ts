/**
 * Thousands of malformed bodies and headers against every route: the service never crashes,
 * never answers 5xx, and every 400 names what was wrong. Operations go to a session that does
 * not exist, so a body that happens to be valid is a 404 instead of a run; `/start` bodies
 * always carry at least one field of the wrong type. The seed is printed with a failure.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../support/random.js";
import { useService } from "../support/service.js";

const service = useService({ ratePerMinute: 1_000_000 });

const SEED = Number(process.env.WAYFARER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

/** A value of any JSON type, nested a little, with the odd hostile string. */
function value(depth = 0): unknown {
  const kinds = depth > 2 ? 5 : 7;
  switch (Math.floor(random() * kinds)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick([0, -1, 1e308, 3.5, Number.MAX_SAFE_INTEGER]);
    case 3:
      return pick(["", " ", "x".repeat(1000), "__proto__", "%password%", "\u0000", "😀", "{"]);
    case 4:
      return pick([
        "click",
        "fill",
        "openai/gpt-4.1-mini",
        "http://169.254.169.254/",
        "about:blank",
      ]);
    case 5:
      return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [pick(FIELDS), value(depth + 1)]),
      );
  }
}

const FIELDS = [
  "input",
  "instruction",
  "options",
  "frameId",
  "schema",
  "url",
  "agentConfig",
  "executeOptions",
  "model",
  "variables",
  "timeout",
  "selector",
  "method",
  "arguments",
  "streamResponse",
  "modelName",
  "verbose",
  "browserbaseSessionCreateParams",
  "__proto__",
  "constructor",
];

/** A body: an object of known and unknown fields with values of any type, or not an object. */
function body(): string {
  const r = random();
  if (r < 0.08) return pick(["", "{", "[]", "null", "42", '"text"', '{"a":}', "\u0000"]);
  const object = Object.fromEntries(
    Array.from({ length: 1 + Math.floor(random() * 5) }, () => [pick(FIELDS), value()]),
  );
  return JSON.stringify(object);
}

const OPERATIONS = ["navigate", "act", "extract", "observe", "agentExecute", "end"];

describe(`malformed requests (seed ${SEED})`, () => {
  it("never crash the service, never get a 5xx, and each 400 names what was wrong", async () => {
    const problems: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      const operation = pick([...OPERATIONS, "start", "release", "replay"]);
      const text =
        operation === "start"
          ? JSON.stringify({ ...JSON.parse(safe(body())), verbose: "loud" })
          : body();
      const headers: Record<string, string> = {
        "content-type": pick([
          "application/json",
          "application/json",
          "text/plain",
          "application/x-www-form-urlencoded",
        ]),
      };
      if (random() < 0.3) headers["x-stream-response"] = pick(["true", "false", "yes", "", "TRUE"]);
      if (random() < 0.1) headers["x-model-api-key"] = pick(["", "x".repeat(5000)]);
      const [method, path] =
        operation === "start"
          ? ["POST", "/v1/sessions/start"]
          : operation === "release"
            ? ["POST", "/v1/sessions/no-such-session"]
            : operation === "replay"
              ? ["GET", "/v1/sessions/no-such-session/replay"]
              : ["POST", `/v1/sessions/no-such-session/${operation}`];
      const answer = await service.call(method, path, {
        body: method === "GET" ? undefined : text,
        headers,
      });
      const where = `${method} ${path} ${text.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 200)}`;
      if (answer.status >= 500) problems.push(`5xx: ${where}`);
      else if (answer.status === 200) problems.push(`accepted: ${where}`);
      else if (answer.body?.success !== false || typeof answer.body.message !== "string") {
        problems.push(`not our failure shape: ${where}`);
      } else if (
        answer.status === 400 &&
        !/ at |JSON|content type|body/i.test(answer.body.message)
      ) {
        problems.push(`a 400 naming nothing: ${where}`);
      }
    }
    expect(problems.slice(0, 10), `seed ${SEED}`).toEqual([]);
    // Still serving.
    expect((await service.call("GET", "/healthz", { key: null })).body).toEqual({ ok: true });
  });
});

/** A generated body as an object to spread (anything not an object counts as none). */
function safe(text: string): string {
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? text : "{}";
  } catch {
    return "{}";
  }
}
