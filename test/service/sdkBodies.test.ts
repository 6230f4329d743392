/**
 * Every field the official Python SDK (3.19.5) can send, as its generated "with all params"
 * tests send them (camelCase, as it puts them on the wire), answers 2xx or 4xx: a caller's
 * mistake or a feature this service does not have is never a 5xx, which the generated SDKs would
 * retry twice. `/start`'s fields one at a time beside a minimal body, then all at once; each
 * operation's whole body on a live session. The one 501 is `useSearch` on a service without a
 * search backend, sent with `x-should-retry: false`. Only the page's URL is the fixture
 * server's (example.com is not reachable from here); the model is the scripted one at the SDK's
 * own base URL.
 */
import { describe, expect, it } from "vitest";
import { anyJobModel } from "../support/llm/anyJobModel.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const pages = useStaticServer();
useModelServer(anyJobModel());
const service = useService();
const MODEL_KEY = "sk-some-openai-api-key";

/**
 * The SDK's model at the provider's own endpoint (the scripted one). Without its baseURL and
 * headers: either makes it an endpoint of the caller's, which the service resolves itself, and
 * api.openai.com resolves to nothing here (the full model is refused with a 400 saying so).
 */
const PROVIDER_MODEL = { modelName: "openai/gpt-5.4-mini", apiKey: MODEL_KEY, provider: "openai" };

const MODEL = {
  modelName: "openai/gpt-5.4-mini",
  apiKey: MODEL_KEY,
  baseURL: "https://api.openai.com/v1",
  headers: { foo: "string" },
  provider: "openai",
};

/** test_method_start_with_all_params, as the SDK puts it on the wire. */
const START_ALL = {
  modelName: "openai/gpt-5.4-mini",
  actTimeoutMs: 0,
  browser: {
    cdpUrl: "ws://localhost:9222",
    launchOptions: {
      acceptDownloads: true,
      args: ["string"],
      cdpHeaders: { foo: "string" },
      cdpUrl: "cdpUrl",
      chromiumSandbox: true,
      connectTimeoutMs: 0,
      deviceScaleFactor: 0,
      devtools: true,
      downloadsPath: "downloadsPath",
      executablePath: "executablePath",
      hasTouch: true,
      headless: true,
      ignoreDefaultArgs: true,
      ignoreHTTPSErrors: true,
      locale: "locale",
      port: 0,
      preserveUserDataDir: true,
      proxy: { server: "server", bypass: "bypass", password: "password", username: "username" },
      userDataDir: "userDataDir",
      viewport: { height: 0, width: 0 },
    },
    type: "local",
  },
  browserbaseSessionCreateParams: {
    browserSettings: {
      advancedStealth: true,
      blockAds: true,
      context: { id: "id", persist: true },
      extensionId: "extensionId",
      fingerprint: {
        browsers: ["chrome"],
        devices: ["desktop"],
        httpVersion: "1",
        locales: ["string"],
        operatingSystems: ["android"],
        screen: { maxHeight: 0, maxWidth: 0, minHeight: 0, minWidth: 0 },
      },
      logSession: true,
      recordSession: true,
      solveCaptchas: true,
      viewport: { height: 0, width: 0 },
    },
    extensionId: "extensionId",
    keepAlive: true,
    projectId: "projectId",
    proxies: true,
    region: "us-west-2",
    timeout: 0,
    userMetadata: { foo: "bar" },
  },
  browserbaseSessionID: "browserbaseSessionID",
  domSettleTimeoutMs: 5000,
  experimental: true,
  selfHeal: true,
  systemPrompt: "systemPrompt",
  verbose: 1,
  waitForCaptchaSolves: true,
};

/** Every leaf of `value`, as a path and its value (a list counts as one leaf). */
function leaves(value: unknown, path: string[] = []): [string[], unknown][] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[path, value]];
  return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]));
}

function withLeaf(path: string[], value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { modelName: START_ALL.modelName };
  let at = body;
  for (const key of path.slice(0, -1)) {
    at[key] = (at[key] as Record<string, unknown>) ?? {};
    at = at[key] as Record<string, unknown>;
  }
  at[path.at(-1)!] = value;
  return body;
}

const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  service.call("POST", `/v1${path}`, {
    body,
    headers: {
      "x-model-api-key": MODEL_KEY,
      "x-language": "python",
      "x-sdk-version": "3.19.5",
      ...headers,
    },
  });

describe("the Python SDK's bodies with all params", () => {
  it("/start: each field alone beside a minimal body, and all at once, answers 2xx or 4xx", async () => {
    const answers: string[] = [];
    for (const [path, value] of [
      ...leaves(START_ALL).filter(([p]) => p.length > 1 || p[0] !== "modelName"),
      [[], undefined] as [string[], unknown],
    ]) {
      const body = path.length ? withLeaf(path, value) : START_ALL;
      const answer = await call("/sessions/start", body);
      answers.push(`${path.join(".") || "(all)"}: ${answer.status}`);
      expect(answer.status, `${path.join(".") || "all"}: ${answer.text}`).toBeLessThan(500);
      if (answer.status === 200) {
        const ended = await call(`/sessions/${answer.body.data.sessionId}/end`, {});
        expect(ended.status).toBe(200);
      } else {
        // A refusal says what to change, by the field's name.
        expect(answer.body.success).toBe(false);
      }
    }
    expect(answers.length).toBeGreaterThan(40);
  }, 120_000);

  it("act, extract, observe, navigate and agentExecute with every field answer 2xx or 4xx; useSearch without a backend is a 501 not to retry", async () => {
    const started = await call("/sessions/start", { modelName: "openai/gpt-5.4-mini" });
    expect(started.status, started.text).toBe(200);
    const id = started.body.data.sessionId as string;
    try {
      const url = pages.url("basic.html");
      const bodies: [string, Record<string, unknown>][] = [
        [
          "navigate",
          {
            url,
            frameId: "frameId",
            options: { referer: "referer", timeout: 30000, waitUntil: "networkidle" },
            streamResponse: false,
          },
        ],
        [
          "navigate",
          {
            url,
            options: { referer: "referer", timeout: 30000, waitUntil: "networkidle" },
            streamResponse: false,
          },
        ],
        [
          "act",
          {
            input: "Click the login button",
            frameId: "frameId",
            options: {
              model: MODEL,
              timeout: 30000,
              variables: {
                username: "john_doe",
                password: { value: "secret123", description: "The login password" },
              },
            },
            streamResponse: false,
          },
        ],
        [
          "act",
          {
            input: "Click the login button",
            options: {
              model: MODEL,
              timeout: 30000,
              variables: {
                username: "john_doe",
                password: { value: "secret123", description: "The login password" },
              },
            },
            streamResponse: false,
          },
        ],
        [
          "extract",
          {
            frameId: "frameId",
            instruction: "Extract all product names and prices from the page",
            options: { model: MODEL, selector: "#main-content", timeout: 30000 },
            schema: { foo: "bar" },
            streamResponse: false,
          },
        ],
        [
          "extract",
          {
            instruction: "Extract all product names and prices from the page",
            options: { model: MODEL, selector: "h1", timeout: 30000 },
            schema: { foo: "bar" },
            streamResponse: false,
          },
        ],
        [
          "observe",
          {
            frameId: "frameId",
            instruction: "Find all clickable navigation links",
            options: {
              model: MODEL,
              selector: "nav",
              timeout: 30000,
              variables: {
                username: { value: "john@example.com", description: "The login email" },
                rememberMe: true,
              },
            },
            streamResponse: false,
          },
        ],
        [
          "observe",
          {
            instruction: "Find all clickable navigation links",
            options: {
              model: MODEL,
              selector: "body",
              timeout: 30000,
              variables: {
                username: { value: "john@example.com", description: "The login email" },
              },
            },
            streamResponse: false,
          },
        ],
        [
          "agentExecute",
          {
            agentConfig: {
              cua: true,
              executionModel: MODEL,
              mode: "cua",
              model: MODEL,
              provider: "openai",
              systemPrompt: "systemPrompt",
            },
            executeOptions: {
              instruction:
                "Log in with username 'demo' and password 'test123', then navigate to settings",
              highlightCursor: true,
              maxSteps: 20,
              toolTimeout: 30000,
            },
            frameId: "frameId",
            shouldCache: true,
            streamResponse: false,
          },
        ],
      ];
      const withProvider = bodies.map(
        ([operation, body]) =>
          [
            operation,
            JSON.parse(
              JSON.stringify(body).replaceAll(
                JSON.stringify(MODEL),
                JSON.stringify(PROVIDER_MODEL),
              ),
            ),
          ] as [string, Record<string, unknown>],
      );
      for (const [operation, body] of [...bodies, ...withProvider]) {
        const answer = await call(`/sessions/${id}/${operation}`, body, {
          "x-stream-response": "false",
        });
        expect(answer.status, `${operation}: ${answer.text}`).toBeLessThan(500);
      }
      const search = await call(
        `/sessions/${id}/agentExecute`,
        {
          agentConfig: { model: PROVIDER_MODEL },
          executeOptions: { instruction: "Find the price", useSearch: true },
        },
        { "x-stream-response": "false" },
      );
      expect(search.status, search.text).toBe(501);
      expect(search.headers.get("x-should-retry")).toBe("false");
      expect(search.body.message).toContain("WAYFARER_SEARXNG_URL or BRAVE_SEARCH_API_KEY");
      const replay = await service.call("GET", `/v1/sessions/${id}/replay`);
      expect(replay.status).toBe(200);
    } finally {
      await call(`/sessions/${id}/end`, {});
    }
  }, 120_000);

  it("browser.launchOptions.cdpHeaders is refused like cdpUrl where attaching to a caller's browser is off", async () => {
    const refused = await call("/sessions/start", {
      modelName: "openai/gpt-5.4-mini",
      browser: {
        type: "local",
        launchOptions: { cdpHeaders: { Authorization: "Bearer t-0123456789" } },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("browser.launchOptions.cdpHeaders");
    expect(refused.body.message).toContain("WAYFARER_ALLOW_CALLER_CDP=1");
    expect(refused.text).not.toContain("t-0123456789");
  });
});
