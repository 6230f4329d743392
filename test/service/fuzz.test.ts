/**
 * Thousands of malformed bodies and headers against every route: the service never crashes,
 * never answers 5xx, and every 400 names what was wrong. Operations go to a session that does
 * not exist, so a body that happens to be valid is a 404 instead of a run; `/start` bodies
 * always carry at least one field of the wrong type. The seed is printed with a failure.
 * Then the caller's mistakes that only a live session meets (a page, a selector, a model's
 * mode, a deadline), each with its status, as JSON and as a stream; and bodies nested
 * thousands of levels deep, after which the service still serves.
 */
import { describe, expect, it } from "vitest";
import { useModelServer } from "../support/llm/modelServer.js";
import { seededRandom } from "../support/random.js";
import { framesOf, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const service = useService({ ratePerMinute: 1_000_000 });
const server = useStaticServer();
// No case may reach a model: one that did would fail the test here (nothing answers it).
useModelServer();

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

/** Runs `use` on a live session (liveSession), ended after it whatever happens. */
async function withLiveSession(use: (id: string) => Promise<void>): Promise<void> {
  const id = await liveSession();
  try {
    await use(id);
  } finally {
    await service.call("POST", `/v1/sessions/${id}/end`);
  }
}

/** A session of project alpha on the frames fixture; its model can run dom and hybrid only. */
async function liveSession(): Promise<string> {
  const start = await service.call("POST", "/v1/sessions/start", {
    body: { modelName: "openai/gpt-4.1-mini" },
    headers: { "x-model-api-key": "sk-fuzz-test-key-0123456789" },
  });
  expect(start.status).toBe(200);
  const id = start.body.data.sessionId as string;
  const navigate = await service.call("POST", `/v1/sessions/${id}/navigate`, {
    body: { url: `${server.url("frames.html")}?other=${server.otherSite}` },
  });
  expect(navigate.status).toBe(200);
  return id;
}

/** `{…}` nested `levels` deep around `inner`: built as text, as JSON.stringify would overflow. */
const nested = (levels: number, inner = '"x"') =>
  `${'{"a":'.repeat(levels)}${inner}${"}".repeat(levels)}`;
const arrays = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
/** A JSON Schema of objects nested `levels` deep: two levels of the document each. */
const deepSchema = (levels: number) =>
  `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;

interface CallerError {
  operation: string;
  body: string;
  status: number;
  name: string;
  /** What the message must say: the field or option to change, the limit. */
  says: RegExp;
}

const frameId = (operation: string, extra: string): CallerError => ({
  operation,
  body: `{"frameId":"no-such-frame"${extra}}`,
  status: 400,
  name: "PageNotFoundError",
  says: /frameId "no-such-frame".*Leave frameId out.*Open pages: [0-9A-F]{32}/,
});
const scope = (selector: string, name: string, says: RegExp): CallerError => ({
  operation: "extract",
  body: JSON.stringify({ options: { selector } }),
  status: 400,
  name,
  says,
});
const action = (selector: string): CallerError => ({
  operation: "act",
  body: JSON.stringify({ input: { selector, description: "x", method: "click" } }),
  status: 400,
  name: "InvalidSelectorError",
  says: /The selector .* is not valid: .*Write an XPath/,
});

const CALLER_ERRORS: CallerError[] = [
  frameId("extract", ""),
  frameId("observe", ""),
  frameId("act", ',"input":"click the button"'),
  frameId("navigate", ',"url":"about:blank"'),
  frameId("agentExecute", ',"agentConfig":{},"executeOptions":{"instruction":"x"}'),
  scope("//aside", "XPathResolutionError", /^options\.selector: XPath \/\/aside does not resolve/),
  scope("#same >> aside", "XPathResolutionError", /^options\.selector: Selector #same >> aside/),
  scope("h1 >> p", "ContentFrameNotFoundError", /^options\.selector: No content frame for h1/),
  scope("//div[[", "InvalidSelectorError", /^options\.selector: .*its "\[" is not closed/),
  scope("//div/@@id", "InvalidSelectorError", /^options\.selector: .*not a valid XPath expression/),
  scope("div:::bad", "InvalidSelectorError", /^options\.selector: .*not valid CSS/),
  scope("xpath=", "InvalidSelectorError", /^options\.selector: .*no XPath after "xpath="/),
  {
    operation: "extract",
    body: JSON.stringify({ options: { ignoreSelectors: ["h1", "//p[@id='x"] } }),
    status: 400,
    name: "InvalidSelectorError",
    says: /^options\.ignoreSelectors\[1\]: .*quoted string .* is not closed/,
  },
  {
    operation: "observe",
    body: JSON.stringify({ instruction: "the buttons", options: { selector: "//aside" } }),
    status: 400,
    name: "XPathResolutionError",
    says: /^options\.selector: /,
  },
  action("//button[["),
  action("xpath="),
  action("button >> "),
  {
    operation: "agentExecute",
    body: JSON.stringify({
      agentConfig: { mode: "cua", model: "openai/gpt-4.1-mini" },
      executeOptions: { instruction: "x" },
    }),
    status: 422,
    name: "UnsupportedModelError",
    says: /agent mode "cua"\. Modes it can run: dom, hybrid\. Set agentConfig\.mode to "dom" or "hybrid", or agentConfig\.model to a computer-use model/,
  },
  {
    operation: "agentExecute",
    body: JSON.stringify({
      agentConfig: { mode: "hybrid", model: "openai/gpt-3.5-turbo" },
      executeOptions: { instruction: "x" },
    }),
    status: 422,
    name: "UnsupportedModelError",
    says: /Set agentConfig\.mode to "dom", or agentConfig\.model to a model that sees images/,
  },
  {
    operation: "extract",
    // Deeper than any body may nest: refused by the JSON parser before any route reads it.
    body: `{"instruction":"x","schema":${deepSchema(3_000)}}`,
    status: 400,
    name: "ServiceValidationError",
    says: /nested at most 512 levels deep.* → at body$/,
  },
  {
    operation: "extract",
    body: `{"instruction":"x","schema":${deepSchema(100)}}`,
    status: 400,
    name: "ServiceValidationError",
    says: /at most 64 levels deep.* → at extract body\.schema$/,
  },
  {
    operation: "extract",
    // 32 objects deep: 65 levels of the document, one past the limit.
    body: `{"schema":${deepSchema(32)}}`,
    status: 400,
    name: "ServiceValidationError",
    says: /at most 64 levels deep/,
  },
  {
    operation: "extract",
    body: JSON.stringify({
      schema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 5_000 }, (_, i) => [`f${i}`, { type: "string" }]),
        ),
      },
    }),
    status: 400,
    name: "ServiceValidationError",
    says: /at most 10000 values all told/,
  },
  {
    operation: "navigate",
    body: JSON.stringify({ url: "/__hang", options: { timeout: 1_000 } }),
    status: 504,
    name: "ServiceTimeoutError",
    says: /^goto: 1000 ms passed waiting for the load event\. .*pass a longer timeout/,
  },
];

describe("a caller's mistakes on a live session", () => {
  it("each answers its 4xx (or 504 for the caller's deadline) naming what to change, never a 500", async () => {
    await withLiveSession(async (id) => {
      const problems: string[] = [];
      for (const c of CALLER_ERRORS) {
        const body = c.body.replace('"/__hang"', JSON.stringify(server.url("__hang")));
        const answer = await service.call("POST", `/v1/sessions/${id}/${c.operation}`, { body });
        const where = `${c.operation} ${c.body.slice(0, 120)} → ${answer.status} ${answer.text.slice(0, 300)}`;
        if (answer.status !== c.status) problems.push(`status: ${where}`);
        else if (answer.body?.error?.name !== c.name) problems.push(`class: ${where}`);
        else if (!c.says.test(answer.body.message)) problems.push(`message: ${where}`);
        // Streamed, the same error comes in the error frame of a 200 stream, as readable.
        const streamed = await service.call("POST", `/v1/sessions/${id}/${c.operation}`, {
          body,
          headers: { "x-stream-response": "true" },
        });
        const last = framesOf(streamed.text).at(-1);
        // Bad input is answered as JSON before any stream opens.
        if (streamed.status !== 200 && streamed.status !== c.status) {
          problems.push(`streamed status: ${where}`);
        } else if (streamed.status === 200) {
          const same = last?.data?.error === answer.body.message;
          if (last?.data?.status !== "error" || !same || last.data.errorDetail?.name !== c.name) {
            problems.push(`stream: ${where} ⇒ ${JSON.stringify(last).slice(0, 300)}`);
          }
        }
      }
      expect(problems).toEqual([]);
      // The session still works after all of them.
      const back = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: { url: server.url("frames.html") },
      });
      expect(back.status).toBe(200);
      const extract = await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
      expect(extract.body.data.result.pageText).toContain("Frames");
    });
  });
});

describe("bodies nested thousands of levels deep", () => {
  it("are refused or ignored (never a 5xx) on every route, and the service stays up", async () => {
    const started: string[] = [];
    await withLiveSession(async (id) => {
      const problems: string[] = [];
      for (const levels of [3_000, 150_000]) {
        const deep = nested(levels);
        const bodies: [string, string, string][] = [
          ["POST", "start", `{"browserbaseSessionCreateParams":{"userMetadata":${deep}}}`],
          ["POST", "start", `{"browserbaseSessionCreateParams":${deep}}`],
          ["POST", "start", `{"modelName":"openai/gpt-4.1-mini","elsewhere":${deep}}`],
          ["POST", "start", arrays(levels * 3)],
          ["POST", "act", `{"input":"click","options":{"variables":{"a":${deep}}}}`],
          ["POST", "act", `{"input":"click","options":{"variables":${arrays(levels)}}}`],
          ["POST", "act", `{"input":${deep}}`],
          ["POST", "extract", `{"instruction":"x","schema":${deep}}`],
          ["POST", "extract", `{"instruction":"x","schema":${deepSchema(levels)}}`],
          ["POST", "extract", `{"instruction":"x","options":{"model":${deep}}}`],
          ["POST", "observe", `{"options":${deep}}`],
          ["POST", "agentExecute", `{"agentConfig":${deep},"executeOptions":{"instruction":"x"}}`],
          [
            "POST",
            "agentExecute",
            `{"agentConfig":{"model":${deep}},"executeOptions":{"instruction":"x","variables":${deep}}}`,
          ],
          ["POST", "navigate", `{"url":"about:blank","options":${deep}}`],
          ["POST", "stop", deep],
          ["POST", "", `{"status":"REQUEST_RELEASE","more":${deep}}`],
        ];
        for (const [method, operation, body] of bodies) {
          // Release and end would end the live session: those go to one that does not exist.
          const target = operation === "" ? "no-such-session" : id;
          const path =
            operation === "start"
              ? "/v1/sessions/start"
              : `/v1/sessions/${target}${operation ? `/${operation}` : ""}`;
          const answer = await service.call(method, path, { body });
          if (operation === "start" && answer.status === 200)
            started.push(answer.body.data.sessionId);
          const where = `${levels} ${path} ${body.slice(0, 80)} → ${answer.status} ${answer.text.slice(0, 200)}`;
          if (answer.status >= 500) problems.push(where);
          else if (answer.status === 400 && !/ at /.test(answer.body?.message ?? "")) {
            problems.push(`a 400 naming nothing: ${where}`);
          }
        }
        // Refused as a body before any route reads it (a forward to another instance included).
        const end = await service.call("POST", "/v1/sessions/no-such-session/end", { body: deep });
        expect(end.status).toBe(400);
        expect(end.body.message).toContain("nested at most 512 levels");
      }
      expect(problems).toEqual([]);
      // Still serving, the live session too.
      expect((await service.call("GET", "/healthz", { key: null })).body).toEqual({ ok: true });
      const extract = await service.call("POST", `/v1/sessions/${id}/extract`, { body: {} });
      expect(extract.status).toBe(200);
      const view = await service.call("GET", `/v1/sessions/${id}`);
      expect(view.status).toBe(200);
      // A deep body is refused before /end reads it: the session lives on until a plain /end.
      const deepEnd = await service.call("POST", `/v1/sessions/${id}/end`, { body: nested(3_000) });
      expect(deepEnd.status).toBe(400);
      expect((await service.call("GET", `/v1/sessions/${id}`)).status).toBe(200);
      const end = await service.call("POST", `/v1/sessions/${id}/end`, { body: {} });
      expect(end.status).toBe(200);
    }).finally(async () => {
      for (const other of started) await service.call("POST", `/v1/sessions/${other}/end`);
    });
  });
});
