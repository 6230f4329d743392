/** The per-key rate limit: 429 with Retry-After past it, per project, health never limited. */
import { describe, expect, it } from "vitest";
import { RateLimit } from "../../lib/service/rateLimit.js";
import { KEYS, useService } from "../support/service.js";

const service = useService({ ratePerMinute: 5 });

describe("the rate limit", () => {
  it("answers 429 with Retry-After past the limit, for that project only", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await service.call("GET", "/v1/sessions/nope/replay")).status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
    const limited = await service.call("GET", "/v1/sessions/nope/replay");
    expect(limited.body.message).toContain("WAYFARER_RATE_LIMIT");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await service.call("GET", "/v1/sessions/nope/replay", { key: KEYS.beta })).status).toBe(
      404,
    );
    expect((await service.call("GET", "/healthz", { key: null })).status).toBe(200);
  });

  it("counts in one-minute windows", () => {
    const limit = new RateLimit(2);
    const t = 1_000 * 60_000 + 50_000;
    expect([limit.take("a", t), limit.take("a", t), limit.take("a", t)]).toEqual([
      undefined,
      undefined,
      10,
    ]);
    expect(limit.take("a", t + 10_000)).toBeUndefined();
  });
});
