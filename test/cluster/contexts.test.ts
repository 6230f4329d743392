/**
 * Contexts in shared mode (issue 45): not offered yet, and said so. Each instance keeps its own
 * data folder, so a context made on one would be missing on another: every context route and a
 * /start with a context answer 501 NOT_IN_SHARED_MODE rather than a misleading 404.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLUSTER_KEYS, type Cluster, startCluster, v1 } from "../support/cluster.js";
import { describeNeeding } from "../support/systemPackages.js";

let cluster: Cluster;
const codeOf = (body: unknown) => (body as { error?: { code?: string } }).error?.code;

describeNeeding("redis-server")("contexts in shared mode", () => {
  beforeAll(async () => {
    cluster = await startCluster(1, {});
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("answers 501 NOT_IN_SHARED_MODE on every context route and on a /start with a context", async () => {
    const base = cluster.instances[0]!.url;
    const created = await v1(base, "POST", "/contexts", {});
    expect(created.status).toBe(501);
    expect(codeOf(created.body)).toBe("NOT_IN_SHARED_MODE");
    const id = "5a0f3c52-8d1e-4b8e-9d0a-3f6b1c2d4e5f";
    expect((await v1(base, "GET", `/contexts/${id}`)).status).toBe(501);
    const deleted = await fetch(`${base}/v1/contexts/${id}`, {
      method: "DELETE",
      headers: { "x-wf-api-key": CLUSTER_KEYS.alpha },
    });
    expect(deleted.status).toBe(501);
    const started = await v1(base, "POST", "/sessions/start", {
      browserbaseSessionCreateParams: { browserSettings: { context: { id } } },
    });
    expect(started.status).toBe(501);
    expect(codeOf(started.body)).toBe("NOT_IN_SHARED_MODE");
  });
});
