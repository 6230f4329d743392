/**
 * The links the service hands out (connectUrl, debug) use what clients reach it by: the
 * configured public URL, else the request's host, and a proxy's X-Forwarded-* only when that
 * proxy is trusted. Never the bind address when the client came by another name.
 */
import { describe, expect, it } from "vitest";
import { useService } from "../support/service.js";

const plain = useService();
const trusted = useService({ trustProxy: "127.0.0.1" });
const published = useService({ publicUrl: "https://wayfarer.example" });

const forwarded = { "x-forwarded-host": "tea.example", "x-forwarded-proto": "https" };

async function connectUrlOf(service: typeof plain): Promise<string> {
  const started = await service.call("POST", "/v1/sessions/start", { body: {} });
  const id = started.body.data.sessionId as string;
  try {
    const info = await service.call("GET", `/v1/sessions/${id}`, { headers: forwarded });
    return info.body.connectUrl as string;
  } finally {
    await service.call("POST", `/v1/sessions/${id}/end`);
  }
}

describe("the links the service hands out", () => {
  it("ignore X-Forwarded-* from a peer that is not trusted", async () => {
    expect(await connectUrlOf(plain)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/sessions\//);
  });

  it("follow a trusted proxy's X-Forwarded-Host and -Proto", async () => {
    expect(await connectUrlOf(trusted)).toMatch(/^wss:\/\/tea\.example\/v1\/sessions\//);
  });

  it("use WAYFARER_PUBLIC_URL when it is set", async () => {
    expect(await connectUrlOf(published)).toMatch(/^wss:\/\/wayfarer\.example\/v1\/sessions\//);
  });
});
