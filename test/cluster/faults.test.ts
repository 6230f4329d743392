/**
 * Shared mode when things break, with a real redis-server and real instances: an owner killed
 * outright mid-run (its sessions answer 410 from the others at once and after its entry
 * expires, never a hang; its browsers and their folders do not outlive it; the survivor keeps
 * serving its own); Redis restarting empty (instances keep serving, then write their entries
 * again and a newcomer finds the sessions); Redis unreachable at start (a clear error).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, sessionAt, startCluster, v1 } from "../support/cluster.js";
import { type ModelKitServer, serveModelKit } from "../support/llm/modelHttp.js";
import { shopModel } from "../support/llm/shopModel.js";
import { freePort } from "../support/ports.js";
import {
  commandLineIfLive,
  isEgressWorker,
  liveDescendants,
  stillLive,
} from "../support/processes.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";
import { gate, within } from "../support/waiting.js";

const pages = useStaticServer();
let kit: ModelKitServer;
let cluster: Cluster;

beforeAll(async () => {
  kit = await serveModelKit(shopModel());
  cluster = await startCluster(2, { OPENAI_BASE_URL: kit.url });
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
  await kit?.close();
}, 60_000);

/** A session started on `base`, its page at the shop. */
const shopSession = (base: string) => sessionAt(base, pages.url("outline/shop.html"));

/** The page's outline, asked with no model (extract with no instruction). */
const outline = (base: string, id: string) =>
  v1(base, "POST", `/sessions/${id}/extract`, { options: {} });

/** Chromium's processes under an instance (the lifeline shell left out), with their folders. */
function browsersOf(pid: number): { pids: number[]; folders: string[] } {
  const pids = liveDescendants(pid).filter((p) => {
    const line = commandLineIfLive(p).join(" ");
    return !line.startsWith("sh -c") && !isEgressWorker(p);
  });
  const folders = pids
    .flatMap((p) => commandLineIfLive(p))
    .map((arg) => arg.match(/^--user-data-dir=(.+)\/profile$/)?.[1])
    .filter((dir): dir is string => dir !== undefined);
  return { pids, folders: [...new Set(folders)] };
}

describeNeeding("redis-server")("shared mode when things break", () => {
  it("an owner killed outright mid-run: 410 from the others (at once, and after its entry expires), its browsers gone, the survivor serving on", async () => {
    const [A, B] = cluster.instances as [
      (typeof cluster.instances)[0],
      (typeof cluster.instances)[0],
    ];
    const mine = await shopSession(B.url);
    const first = await shopSession(A.url);
    const second = await shopSession(A.url);
    const atModel = gate();
    let waiting = 0;
    kit.use(
      http.post("https://api.openai.com/v1/responses", async ({ request }) => {
        // The two acts' calls only; later tests get the shop's answers.
        if (waiting === 2) return undefined;
        if (++waiting === 2) atModel.open();
        // Never answers: only the caller giving up ends it.
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve, { once: true }),
        );
        return HttpResponse.error();
      }),
    );
    // Two operations on A's sessions, through B: one answered as JSON, one as SSE.
    const json = v1(B.url, "POST", `/sessions/${first}/act`, {
      input: "add black tea to the cart",
      options: {},
    });
    const sse = fetch(`${B.url}/v1/sessions/${second}/act`, {
      method: "POST",
      headers: {
        "x-wf-api-key": CLUSTER_KEYS.alpha,
        "x-stream-response": "true",
        "content-type": "application/json",
      },
      body: JSON.stringify({ input: "add black tea to the cart", options: {} }),
    }).then((r) => r.text());
    await within(20_000, "both acts at the model", atModel.opened);
    const browsers = browsersOf(A.child.pid!);
    expect(browsers.pids.length).toBeGreaterThan(1);
    expect(browsers.folders.length).toBe(2);

    A.child.kill("SIGKILL");
    const answered = await within(5_000, "the JSON act's answer", json);
    expect(answered.status).toBe(410);
    expect(answered.body.message).toMatch(/is gone: the instance that held it .* stopped/);
    const streamed = await within(5_000, "the streamed act's end", sse);
    const last = JSON.parse(streamed.trim().split("\n\n").at(-1)!.slice(6));
    expect(last).toMatchObject({ type: "system", data: { status: "error" } });
    expect(last.data.error).toContain("stopped while answering");

    // Asked again: 410 at once; and still after the owner's entry has expired (TTL 2 s).
    expect((await within(3_000, "a second ask", outline(B.url, first))).status).toBe(410);
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await within(3_000, "an ask after the TTL", outline(B.url, second))).status).toBe(410);

    // Its browsers did not outlive it for long, nor their folders.
    expect(await stillLive(browsers.pids, 5_000)).toEqual([]);
    await within(
      5_000,
      "the folders' removal",
      (async () => {
        while (browsers.folders.some((f) => existsSync(f)))
          await new Promise((r) => setTimeout(r, 100));
      })(),
    );

    // The survivor serves its own session, and ends its browser with it.
    expect((await outline(B.url, mine)).status).toBe(200);
    expect((await v1(B.url, "POST", `/sessions/${mine}/end`)).status).toBe(200);
    expect(await stillLive(browsersOf(B.child.pid!).pids, 5_000)).toEqual([]);
  });

  it("Redis restarting empty: instances serve their sessions meanwhile, then register again and a newcomer finds them", async () => {
    const owner = await cluster.add();
    const survivor = cluster.instances[1]!;
    const id = await shopSession(owner.url);
    // The survivor has routed to the owner once, through the registry.
    expect((await outline(survivor.url, id)).status).toBe(200);

    await cluster.redis.stop();
    // The owner serves its session, directly and through the survivor (the id names it).
    expect((await outline(owner.url, id)).status).toBe(200);
    expect((await outline(survivor.url, id)).status).toBe(200);
    // A model call: no cache to read or write, answered all the same.
    const asked = await v1(survivor.url, "POST", `/sessions/${id}/extract`, {
      instruction: "what the cart says",
      options: {},
    });
    expect(asked.body.data?.result).toEqual({ extraction: "Cart: empty" });
    // New sessions start where the request lands.
    const local = await v1(survivor.url, "POST", "/sessions/start", {});
    expect(local.body).toMatchObject({ success: true });

    await cluster.redis.restart();
    const redis = cluster.inspect();
    await within(
      10_000,
      "the owner's entries written again",
      (async () => {
        while (
          (await redis.hget(`wayfarer:session:${id}`, "owner").catch(() => null)) !== owner.id
        ) {
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
    );
    // An instance that never saw the owner before finds it through the registry.
    const newcomer = await cluster.add();
    expect((await outline(newcomer.url, id)).status).toBe(200);
    const hit = await v1(newcomer.url, "POST", `/sessions/${id}/extract`, {
      instruction: "what the cart says",
      options: {},
    });
    expect(hit.headers.get("x-cache-status")).toBe("MISS");
    const again = await v1(owner.url, "POST", `/sessions/${id}/extract`, {
      instruction: "what the cart says",
      options: {},
    });
    expect(again.headers.get("x-cache-status")).toBe("HIT");
    await v1(newcomer.url, "POST", `/sessions/${id}/end`);
    await v1(survivor.url, "POST", `/sessions/${local.body.data!.sessionId}/end`);
  });

  it("Redis unreachable at start: a clear error naming it (never its password), exit 1; REDIS_URL without keys: the error names WAYFARER_API_KEYS", async () => {
    const port = await freePort();
    const unreachable = await runToExit({
      REDIS_URL: `redis://:sekrit-redis-pass@127.0.0.1:${port}`,
      WAYFARER_API_KEYS: `alpha:${CLUSTER_KEYS.alpha}`,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`Could not reach Redis at redis://127.0.0.1:${port}`);
    expect(unreachable.stderr + unreachable.stdout).not.toContain("sekrit-redis-pass");
    expect(unreachable.stdout).not.toContain("listening on");

    const keyless = await runToExit({ REDIS_URL: cluster.redis.url, WAYFARER_API_KEYS: "" });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain("WAYFARER_API_KEYS");
  });
});

/** `npm run service` expected to give up: its exit code and what it printed. */
function runToExit(env: Record<string, string>) {
  const main = join(import.meta.dirname, "..", "..", "lib", "service", "main.ts");
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return within(
    20_000,
    "the service giving up",
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.once("exit", (code) => resolve({ code, stdout, stderr })),
    ),
  ).finally(() => child.kill("SIGKILL"));
}
