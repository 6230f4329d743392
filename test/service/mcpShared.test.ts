/**
 * `/mcp` in shared mode: two real instances on a real redis-server. An MCP session initialized
 * on one is used through the other (its requests forwarded to the owner, SSE and all); an
 * initialize on a full instance is placed on the one with room; DELETE through either ends it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, startCluster } from "../support/cluster.js";
import { idOfLine } from "../support/llm/modelServer.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";

const pages = useStaticServer();
let cluster: Cluster;
let A = "";
let B = "";

beforeAll(async () => {
  cluster = await startCluster(2, {
    WAYFARER_MAX_SESSIONS: "1",
    // Placement fills both instances with one project's sessions.
    WAYFARER_PROJECT_MAX_SESSIONS: "4",
  });
  [A, B] = cluster.instances.map((i) => i.url) as [string, string];
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const HEADERS = { authorization: `Bearer ${CLUSTER_KEYS.alpha}` };

/** An MCP client of `base`; with `sessionId`, of that session (no initialize of its own). */
async function connect(base: string, sessionId?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: HEADERS },
    ...(sessionId ? { sessionId } : {}),
  });
  const client = new Client({ name: "wayfarer-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    id: transport.sessionId!,
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

const textOf = (result: CallToolResult) =>
  result.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");

describeNeeding("redis-server")("/mcp in shared mode", () => {
  it("a session initialized on one instance is used through the other, and ended through it", async () => {
    const onA = await connect(A);
    // Its id names its owner.
    expect(onA.id.startsWith(`${cluster.instances[0]!.id}.`)).toBe(true);
    const page = textOf(await onA.call("open", { url: pages.url("agent/counter.html") }));
    const throughB = await connect(B, onA.id);
    const clicked = await throughB.call("click", { id: idOfLine(page, 'button "Add a cup"') });
    expect(clicked.isError).toBeFalsy();
    expect(textOf(clicked)).toMatch(/^1 cups$/m);
    // The owner's run goes on where B's call left it.
    expect(textOf(await onA.call("read", { fresh: true }))).toMatch(/^1 cups$/m);
    await throughB.transport.terminateSession();
    await throughB.client.close();
    const after = await onA.client.listTools().catch((error: Error) => error);
    expect(after).toBeInstanceOf(Error);
    expect(String(after)).toContain("Session not found");
    await onA.client.close();
  });

  it("another project's session id, sent through the other instance, is not found there either; the owner's session goes on", async () => {
    const onA = await connect(A);
    const page = textOf(await onA.call("open", { url: pages.url("agent/counter.html") }));
    const click = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "click", arguments: { id: idOfLine(page, 'button "Add a cup"') } },
    };
    // Project gamma, with alpha's id: forwarded to A, which answers as for an unknown id.
    for (const [base, id] of [
      [B, onA.id],
      [A, onA.id],
      [B, onA.id.toUpperCase()],
      [B, `${onA.id} `],
    ] as const) {
      const answer = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${CLUSTER_KEYS.gamma}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "mcp-session-id": id,
        },
        body: JSON.stringify(click),
      });
      expect(answer.status, `${base} ${id}`).toBe(404);
      expect(await answer.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32001, message: "Session not found" },
        id: null,
      });
    }
    // Nothing was clicked: alpha reads the page as it was.
    expect(textOf(await onA.call("read", { fresh: true }))).toMatch(/^0 cups$/m);
    await onA.transport.terminateSession();
    await onA.client.close();
  });

  it("an initialize on a full instance is placed on the one with room", async () => {
    const first = await connect(A);
    expect(first.id.startsWith(`${cluster.instances[0]!.id}.`)).toBe(true);
    // A holds its one session: B takes the next, and A answers for it.
    const second = await connect(A);
    expect(second.id.startsWith(`${cluster.instances[1]!.id}.`)).toBe(true);
    const opened = await second.call("open", { url: pages.url("agent/counter.html") });
    expect(opened.isError).toBeFalsy();
    expect(textOf(opened)).toContain('button "Add a cup"');
    for (const c of [first, second]) {
      await c.transport.terminateSession();
      await c.client.close();
    }
  });
});
