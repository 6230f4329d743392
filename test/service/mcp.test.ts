/**
 * `/mcp` on the real service, through the official SDK's client over Streamable HTTP, on real
 * Chromium and the fixture pages: the key (either header; a 401 that says Bearer), the tools,
 * reading and clicking by id, a variable's value in no answer, two sessions apart (and another
 * project's id answered as none), DELETE ending the browser, the idle end, the project's
 * session quota, the address rule, and the agent's progress over SSE with the model kit.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { serviceConfig } from "../../lib/service/config.js";
import { idOfLine, useModelServer } from "../support/llm/modelServer.js";
import { teaAgentById } from "../support/llm/teaAgent.js";
import { waitUntilGone } from "../support/processes.js";
import { KEYS, type RunningService, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";
import { within } from "../support/waiting.js";

const server = useStaticServer();
const model = useModelServer();
const service = useService();
/** A second service: a short idle time, and one session per project. */
const small = useService({
  idleMs: 1_500,
  maxSessions: 4,
  limits: { ...serviceConfig({}).limits, projectSessions: 1 },
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};
const ACCEPT = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
};
const NOT_FOUND = {
  jsonrpc: "2.0",
  error: { code: -32001, message: "Session not found" },
  id: null,
};

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The initialize answer's headers. */
  initialized: Headers;
  id: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

const opened: Connected[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) {
    await c.transport.terminateSession().catch(() => {});
    await c.client.close();
  }
});

/** An MCP client of `on` with these headers (the key among them, as the test chooses). */
async function connect(
  on: RunningService,
  headers: Record<string, string> = { authorization: `Bearer ${KEYS.alpha}` },
): Promise<Connected> {
  let initialized: Headers | undefined;
  const transport = new StreamableHTTPClientTransport(new URL(`${on.url}/mcp`), {
    requestInit: { headers },
    fetch: async (url, init) => {
      const answer = await fetch(url, init);
      initialized ??= answer.headers;
      // The SDK cancels the bodies it does not read (a 202's, DELETE's), and msw's copy of a
      // body (the model kit intercepts this process's fetch) never settles a cancel: any answer
      // but a stream is read to its end here instead.
      if (answer.headers.get("content-type")?.startsWith("text/event-stream")) return answer;
      const body = await answer.arrayBuffer();
      return new Response(answer.status === 202 || !body.byteLength ? null : body, {
        status: answer.status,
        headers: answer.headers,
      });
    },
  });
  const client = new Client({ name: "wayfarer-test", version: "1.0.0" });
  await client.connect(transport);
  const connected: Connected = {
    client,
    transport,
    initialized: initialized!,
    id: transport.sessionId!,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
  opened.push(connected);
  return connected;
}

/** A raw POST /mcp; its status, headers and body. */
async function post(on: RunningService, body: unknown, headers: Record<string, string>) {
  const answer = await fetch(`${on.url}/mcp`, {
    method: "POST",
    headers: { ...ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, headers: answer.headers, text };
}

/** wayfarer_mcp_tool_calls_total by "tool,outcome". */
async function mcpCalls(): Promise<Record<string, number>> {
  const metric = await service.service.metrics.registry
    .getSingleMetric("wayfarer_mcp_tool_calls_total")
    ?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map((v) => [`${v.labels.tool},${v.labels.outcome}`, v.value]),
  );
}

const textOf = (result: CallToolResult) =>
  result.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");

describe("/mcp: the key", () => {
  it("refuses a missing or wrong key with 401 and WWW-Authenticate: Bearer, before any session", async () => {
    const tries: Record<string, string>[] = [
      {},
      { authorization: "Bearer key-wrong-0123456789abcdef" },
      { authorization: `Basic ${KEYS.alpha}` },
      { "x-wf-api-key": "key-wrong-0123456789abcdef" },
    ];
    for (const headers of tries) {
      const answer = await post(service, INITIALIZE, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe("Bearer");
      expect(answer.text).toContain("Authorization: Bearer");
      expect(answer.text).not.toContain(KEYS.alpha);
    }
    const client = new Client({ name: "wayfarer-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { authorization: "Bearer key-wrong-0123456789abcdef" } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/A valid API key is required/);
    expect(service.service.sessions.size).toBe(0);
  });

  it("takes the key as Bearer or as x-wf-api-key; without a model, the page tools only", async () => {
    const forms: Record<string, string>[] = [
      { authorization: `Bearer ${KEYS.alpha}` },
      { "x-wf-api-key": KEYS.alpha },
    ];
    for (const headers of forms) {
      const { client, id, initialized } = await connect(service, headers);
      // The MCP session's id is the service session's.
      expect(service.service.sessions.get(id, "alpha").id).toBe(id);
      expect(initialized.get("x-wf-session-url")).toMatch(
        new RegExp(`/dashboard/${id}#token=[\\w-]{20,}$`),
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("read");
      expect(names).toContain("click");
      for (const modelTool of ["act", "extract", "observe", "agent"]) {
        expect(names).not.toContain(modelTool);
      }
    }
  });
});

describe("/mcp: tools on the session's browser", () => {
  it("reads a page and clicks by id; each call is an operation of the session", async () => {
    const { call, id } = await connect(service);
    const page = textOf(await call("open", { url: server.url("agent/counter.html") }));
    expect(page).toMatch(/\[\d+\] button "Add a cup"/);
    const clicked = await call("click", { id: idOfLine(page, 'button "Add a cup"') });
    expect(clicked.isError).toBeFalsy();
    expect(textOf(clicked)).toMatch(/^1 cups$/m);
    const session = service.service.sessions.get(id, "alpha");
    expect(session.operations.map((o) => o.method)).toEqual(["mcp.open", "mcp.click"]);
    expect(session.operations.every((o) => o.ok)).toBe(true);
  });

  it("fills a %secret% variable of the x-wf-variables header: its value in no answer", async () => {
    const PASSWORD = "hunter2-mcp-service-secret";
    const variables = { password: { value: PASSWORD, origins: [server.origin] } };
    const { call } = await connect(service, {
      authorization: `Bearer ${KEYS.alpha}`,
      "x-wf-variables": Buffer.from(JSON.stringify(variables)).toString("base64"),
    });
    const answers: CallToolResult[] = [];
    const keep = async (name: string, args: Record<string, unknown> = {}) => {
      const answer = await call(name, args);
      answers.push(answer);
      return answer;
    };
    const page = textOf(await keep("open", { url: server.url("secrets/echo.html") }));
    const filled = await keep("fill", {
      id: idOfLine(page, 'textbox "Token"'),
      value: "%password%",
    });
    expect(filled.isError).toBeFalsy();
    expect(textOf(filled)).toContain("You typed: %password%");
    await keep("read", { fresh: true });
    await keep("tabs", { action: "list" });
    await keep("screenshot");
    expect(JSON.stringify(answers)).not.toContain(PASSWORD);
  });

  it("refuses a variable without origins at initialize, naming the header", async () => {
    const variables = Buffer.from(JSON.stringify({ password: { value: "x" } })).toString("base64");
    const answer = await post(service, INITIALIZE, {
      authorization: `Bearer ${KEYS.alpha}`,
      "x-wf-variables": variables,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(answer.text).toContain("x-wf-variables.password.origins");
  });

  it("keeps two MCP sessions apart; another project's session id is not found", async () => {
    const one = await connect(service);
    const two = await connect(service);
    expect(one.id).not.toBe(two.id);
    const page = textOf(await one.call("open", { url: server.url("agent/counter.html") }));
    const add = idOfLine(page, 'button "Add a cup"');
    // The other session's ids name nothing here: this one has read no page.
    const foreign = await two.call("click", { id: add });
    expect(foreign.isError).toBe(true);
    expect(textOf(await two.call("open", { url: server.url("agent/signup.html") }))).not.toContain(
      "Add a cup",
    );
    expect(textOf(await one.call("click", { id: add }))).toMatch(/^1 cups$/m);
    const browsers = [one.id, two.id].map((id) => service.service.sessions.browserPidOf(id));
    expect(browsers[0]).not.toBe(browsers[1]);
    // Another project's key with this project's id: the answer an unknown id gets.
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    for (const [key, id] of [
      [KEYS.beta, one.id],
      [KEYS.alpha, "no-such-session"],
    ] as const) {
      const answer = await post(service, list, {
        authorization: `Bearer ${key}`,
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.text)).toEqual(NOT_FOUND);
    }
  });

  it("refuses to open a host the service's address rule refuses, as a tool error; the metrics count each call by tool and outcome", async () => {
    const before = await mcpCalls();
    const { call } = await connect(service);
    const refused = await call("open", { url: "http://169.254.169.254/latest/meta-data/" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/169\.254\.169\.254/);
    // The session goes on.
    const page = await call("open", { url: server.url("agent/counter.html") });
    expect(page.isError).toBeFalsy();
    const after = await mcpCalls();
    expect((after["open,error"] ?? 0) - (before["open,error"] ?? 0)).toBe(1);
    expect((after["open,ok"] ?? 0) - (before["open,ok"] ?? 0)).toBe(1);
  });

  it("ends the session and its browser on DELETE; its id is then not found", async () => {
    const { transport, id } = await connect(service);
    const pid = service.service.sessions.browserPidOf(id);
    expect(pid).toBeGreaterThan(0);
    await transport.terminateSession();
    expect(await waitUntilGone(pid!)).toEqual([]);
    expect(service.service.sessions.find(id)).toBeUndefined();
    const again = await post(
      service,
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { authorization: `Bearer ${KEYS.alpha}`, "mcp-session-id": id },
    );
    expect(again.status).toBe(404);
    expect(JSON.parse(again.text)).toEqual(NOT_FOUND);
  });
});

describe("/mcp: the session's end", () => {
  it("a session ended by /v1/sessions/{id}/end closes its MCP session: its id is not found", async () => {
    const { client, id } = await connect(service);
    const ended = await service.call("POST", `/v1/sessions/${encodeURIComponent(id)}/end`);
    expect(ended.status).toBe(200);
    const after = await client.listTools().catch((error: Error) => error);
    expect(String(after)).toContain("Session not found");
  });
});

describe("/mcp: the service's limits", () => {
  it("ends an idle session; its id is then not found", async () => {
    const { id } = await connect(small);
    const pid = small.service.sessions.browserPidOf(id)!;
    await within(
      10_000,
      "the idle end",
      (async () => {
        while (small.service.sessions.find(id)) await new Promise((r) => setTimeout(r, 100));
      })(),
    );
    expect(await waitUntilGone(pid)).toEqual([]);
    const answer = await post(
      small,
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { authorization: `Bearer ${KEYS.alpha}`, "mcp-session-id": id },
    );
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toEqual(NOT_FOUND);
  });

  it("holds the project's session quota: the refusal /start gives, as a JSON-RPC error", async () => {
    const first = await connect(small);
    const refused = await post(small, INITIALIZE, { authorization: `Bearer ${KEYS.alpha}` });
    expect(refused.status).toBe(429);
    const body = JSON.parse(refused.text);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32000 } });
    expect(body.error.message).toContain("WAYFARER_PROJECT_MAX_SESSIONS");
    // Another project still starts; the first session is untouched.
    const other = await connect(small, { authorization: `Bearer ${KEYS.beta}` });
    expect(other.id).not.toBe(first.id);
    expect(small.service.sessions.size).toBe(2);
  });
});

describe("/mcp: the model's tools", () => {
  it("lists them with x-wf-model, and runs the agent with its progress over SSE", async () => {
    model.use(teaAgentById());
    const { client, call } = await connect(service, {
      authorization: `Bearer ${KEYS.alpha}`,
      "x-wf-model": "openai/gpt-4.1-mini",
      "x-model-api-key": "sk-mcp-service-model-123456",
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.slice(-4)).toEqual(["act", "extract", "observe", "agent"]);
    await call("open", { url: server.url("agent/search.html") });
    const told: Progress[] = [];
    const result = (await client.callTool(
      { name: "agent", arguments: { task: "Find the price of oolong tea", maxSteps: 10 } },
      undefined,
      { onprogress: (p) => told.push(p), resetTimeoutOnProgress: true },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^Done: The price is \$6\.40/);
    expect(told.map((p) => p.message)).toEqual(
      expect.arrayContaining(["Step 1 of at most 10", "Step 5: done"]),
    );
    expect(JSON.stringify(result)).not.toContain("sk-mcp-service-model-123456");
  });
});
