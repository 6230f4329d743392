/**
 * One example of each operation's request and answer, for the OpenAPI document. The OpenAPI
 * validator in test/service/apiDocs.test.ts checks each against the schema it illustrates.
 */

const ID = "2b0c6f3e-1a5d-4c1b-9a57-6c2d1e8f4a10";
const BASE = "http://127.0.0.1:3000";
const ACTION_ID = "6f1d2c3b-4a5e-4f60-8b7a-9c0d1e2f3a4b";
const PAGE_ID = "8E2B5C1A9F3D4E6B7A8C9D0E1F2A3B4C";
const DASHBOARD = `${BASE}/dashboard/${ID}#token=Vw3q9XnR2kTf8LpZs6YhB1cJmD4gE7aU0oIeKxNvQy5`;
const CDP = `ws://127.0.0.1:3000/v1/sessions/${ID}/cdp?token=Jb7Kq2LmN9pR4sT6vW8xY0zA3cE5fG1h`;

const ok = (data: unknown) => ({ success: true, data });

const button = {
  selector: "xpath=/html/body/main/form/button[1]",
  description: "Log in button",
  method: "click",
  arguments: [],
};

export const EXAMPLES = {
  start: {
    request: {
      modelName: "openai/gpt-4.1-mini",
      verbose: 1,
      browserbaseSessionCreateParams: { keepAlive: false, userMetadata: { job: "prices" } },
    },
    answer: ok({
      sessionId: ID,
      cdpUrl: CDP,
      available: true,
      sessionUrl: DASHBOARD,
      debugUrl: DASHBOARD,
    }),
  },
  navigate: {
    request: { url: "https://example.com/", options: { waitUntil: "load" } },
    answer: ok({ result: null, actionId: ACTION_ID }),
  },
  act: {
    request: { input: "click the log in button", options: { timeout: 30_000 } },
    answer: ok({
      result: {
        success: true,
        message: "Action [click] performed on Log in button",
        actionDescription: "Log in button",
        actions: [button],
      },
      actionId: ACTION_ID,
    }),
  },
  extract: {
    request: {
      instruction: "the name and price of the first product",
      schema: {
        type: "object",
        properties: { name: { type: "string" }, price: { type: "number" } },
        required: ["name", "price"],
      },
    },
    answer: ok({ result: { name: "Trail shoe", price: 89.5 }, actionId: ACTION_ID }),
  },
  observe: {
    request: { instruction: "the log in button" },
    answer: ok({ result: [button], actionId: ACTION_ID }),
  },
  agentExecute: {
    request: {
      agentConfig: { model: "openai/gpt-4.1-mini", mode: "dom" },
      executeOptions: {
        instruction: "find the cheapest trail shoe and open its page",
        maxSteps: 12,
      },
    },
    answer: ok({
      result: {
        success: true,
        message: "The cheapest trail shoe is the Ridge Runner, at $59; its page is open.",
        completed: true,
        actions: [
          {
            type: "act",
            reasoning: "Sort by price first.",
            action: "click Sort: price",
            timeMs: 840,
          },
          { type: "done", taskCompleted: true },
        ],
        usage: { input_tokens: 5120, output_tokens: 230, inference_time_ms: 3110 },
      },
    }),
  },
  end: { answer: ok({}) },
  stop: { answer: ok({ stopped: true }) },
  replay: {
    answer: ok({
      pages: [
        {
          url: "https://example.com/",
          timestamp: 1_767_225_600_000,
          duration: 5_400,
          actions: [
            {
              method: "act",
              parameters: {},
              result: { success: true },
              timestamp: 1_767_225_601_000,
              endTime: 1_767_225_602_300,
              tokenUsage: {
                inputTokens: 2210,
                outputTokens: 41,
                reasoningTokens: 0,
                cachedInputTokens: 0,
                timeMs: 1180,
              },
            },
          ],
        },
      ],
    }),
  },
  platformSession: {
    answer: {
      id: ID,
      status: "RUNNING",
      projectId: "default",
      createdAt: "2026-01-01T00:00:00.000Z",
      connectUrl: CDP,
      keepAlive: false,
      userMetadata: { job: "prices" },
    },
  },
  platformDebug: {
    answer: {
      debuggerUrl: DASHBOARD,
      debuggerFullscreenUrl: DASHBOARD,
      wsUrl: CDP,
      pages: [{ id: PAGE_ID, url: "https://example.com/", title: "Example Domain" }],
    },
  },
  platformRelease: {
    request: { status: "REQUEST_RELEASE" },
    answer: { id: ID, status: "COMPLETED" },
  },
  front: {
    answer: {
      name: "Wayfarer",
      version: "0.1.0",
      docs: `${BASE}/docs`,
      openapi: `${BASE}/v1/openapi.json`,
      health: { healthz: `${BASE}/healthz`, readyz: `${BASE}/readyz` },
      dashboard: `${BASE}/dashboard`,
      guide: "docs/guide/service.md",
    },
  },
  ready: {
    answer: {
      ready: true,
      sessions: { live: 1, capacity: 8, room: 7 },
      protections: {
        cdp: "pipe",
        browserUsers: "per session",
        sandbox: { on: true, by: "user namespaces" },
        memory: { watchdogMb: 2048 },
      },
    },
  },
  notReady: {
    answer: {
      ready: false,
      reason: "full",
      message: "Every session slot is taken: 8 at most (WAYFARER_MAX_SESSIONS).",
      sessions: { live: 8, capacity: 8, room: 0 },
    },
  },
  dashboardLink: {
    answer: ok({
      url: `${BASE}/dashboard#token=Qm9rZ2x5X2V4YW1wbGVfdG9rZW5fdmFsdWVfMTIzNDU2Nzg`,
      expiresAt: "2026-01-01T01:00:00.000Z",
    }),
  },
};

/** A streamed act, as a client that sends no `x-stainless-*` header reads it. */
export const SSE_EXAMPLE = [
  'data: {"id":"a1","type":"system","data":{"status":"starting"}}',
  'data: {"id":"a2","type":"system","data":{"status":"connected"}}',
  'data: {"id":"a3","type":"log","data":{"status":"running","message":{"category":"action","message":"asking the model","level":1}}}',
  `data: {"id":"a4","type":"system","data":{"status":"finished","result":{"success":true,"message":"Action [click] performed on Log in button","actionDescription":"Log in button","actions":[${JSON.stringify(button)}]}}}`,
]
  .map((frame) => `${frame}\n\n`)
  .join("");
