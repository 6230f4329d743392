/**
 * Warm browsers in shared mode (a real redis-server, two real instances on loopback): each
 * instance keeps its own; a full instance places a `/start` on another, whose waiting browser
 * serves it; a session is reached through either instance, and ending it lets its owner's pool
 * fill again.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Cluster, type Instance, startCluster, v1 } from "../support/cluster.js";
import { commandLineIfLive, isEgressWorker, liveDescendants } from "../support/processes.js";
import { scrape } from "../support/prometheus.js";
import { useStaticServer } from "../support/staticServer.js";
import { describeNeeding } from "../support/systemPackages.js";

const pages = useStaticServer();
let cluster: Cluster;

beforeAll(async () => {
  // One session per instance: its one warm browser is the instance's whole room.
  cluster = await startCluster(2, {
    WAYFARER_WARM_BROWSERS: "1",
    WAYFARER_MAX_SESSIONS: "1",
    WAYFARER_PROJECT_MAX_SESSIONS: "4",
  });
}, 90_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const metricsOf = async (instance: Instance) => {
  const scraped = await scrape(instance.url);
  return {
    warm: scraped.value("wayfarer_warm_browsers") ?? 0,
    fromWarm: scraped.value("wayfarer_session_browsers_total", { from: "warm" }) ?? 0,
    launched: scraped.value("wayfarer_session_browsers_total", { from: "launched" }) ?? 0,
  };
};

/** The browsers (their main processes, not their renderers and helpers) under an instance. */
const browsersUnder = (instance: Instance) =>
  liveDescendants(instance.child.pid!).filter((pid) => {
    // Chromium rewrites its command line as one string: its helpers' name their --type.
    const line = commandLineIfLive(pid).join(" ");
    return line !== "" && !line.startsWith("sh ") && !/ --type=/.test(line) && !isEgressWorker(pid);
  });

async function warmOn(instance: Instance): Promise<void> {
  const until = Date.now() + 45_000;
  while ((await metricsOf(instance)).warm < 1 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await metricsOf(instance)).warm).toBe(1);
}

describeNeeding("redis-server")("warm browsers in shared mode", () => {
  it("each instance serves from its own pool, a full one places the start on another's", async () => {
    const [A, B] = cluster.instances as [Instance, Instance];
    await warmOn(A);
    await warmOn(B);

    const first = await v1(A.url, "POST", "/sessions/start", {});
    expect(first.status).toBe(200);
    const firstId = (first.body.data as { sessionId: string }).sessionId;
    expect((await metricsOf(A)).fromWarm).toBe(1);
    // A is full now: its room went to the session, so no browser is launched to wait there.
    // Watched for a while by its processes (one appears as a launch begins; the gauge counts
    // only a browser ready, which a slow launch is not yet).
    const watchedUntil = Date.now() + 2_000;
    while (Date.now() < watchedUntil) {
      expect(browsersUnder(A)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await metricsOf(A)).warm).toBe(0);

    // Asked of A, placed on B, served by B's waiting browser.
    const second = await v1(A.url, "POST", "/sessions/start", {});
    expect(second.status).toBe(200);
    const secondId = (second.body.data as { sessionId: string }).sessionId;
    expect(await metricsOf(B)).toMatchObject({ fromWarm: 1, launched: 0 });
    expect((await metricsOf(A)).launched).toBe(0);

    // Each reached through the other instance.
    const page = pages.url("basic.html");
    expect((await v1(B.url, "POST", `/sessions/${firstId}/navigate`, { url: page })).status).toBe(
      200,
    );
    expect((await v1(A.url, "POST", `/sessions/${secondId}/navigate`, { url: page })).status).toBe(
      200,
    );

    // Ended: each owner's room goes back to its own pool.
    expect((await v1(B.url, "POST", `/sessions/${firstId}/end`, {})).status).toBe(200);
    expect((await v1(A.url, "POST", `/sessions/${secondId}/end`, {})).status).toBe(200);
    await warmOn(A);
    await warmOn(B);
  });
});
