/**
 * A session's browser holds none of the service's secrets: its environment is the launcher's
 * allowlist, in the browser process and in every helper it starts (zygote, renderers, GPU,
 * utilities), not the service's keys, model keys or REDIS_URL.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allowedInBrowser } from "../../lib/browser/browserEnv.js";
import { browserLeaks, CANARY, environOf, SECRETS } from "../support/browserSecrets.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { waitUntilGone } from "../support/processes.js";
import { useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const service = useService();

let restoreEnv: () => void = () => {};
beforeEach(() => {
  restoreEnv = restoreEnvAfterwards();
  Object.assign(process.env, SECRETS, { [CANARY.name]: CANARY.value });
});
afterEach(() => restoreEnv());

describe("a session's browser", () => {
  it("gets no secret of the service's environment, in any of its processes", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    expect(started.status).toBe(200);
    const id = started.body.data.sessionId as string;
    const pid = service.service.sessions.browserPidOf(id)!;
    try {
      // A page with a cross-site frame: renderers of two sites.
      const navigate = await service.call("POST", `/v1/sessions/${id}/navigate`, {
        body: {
          url: `${server.url("frames.html")}?other=${encodeURIComponent(server.otherSite)}`,
        },
      });
      expect(navigate.status).toBe(200);

      const env = environOf(pid);
      expect(env.PATH).toBe(process.env.PATH);
      for (const name of Object.keys(SECRETS)) expect(env, name).not.toHaveProperty(name);
      expect(
        Object.keys(env).filter(
          (n) => !allowedInBrowser(n) && n !== "TMPDIR" && n !== "MAC_CHROMIUM_TMPDIR",
        ),
      ).toEqual([]);

      const seen = browserLeaks(pid);
      expect(seen.length).toBeGreaterThanOrEqual(1);
      for (const p of seen) {
        expect(p.secrets, `secrets in process ${p.pid}`).toEqual([]);
        // The look would have found an inherited value: the canary and PATH are there.
        expect(p.canary, `the canary in process ${p.pid}`).toBe(true);
        expect(p.path, `PATH in process ${p.pid}`).toBe(true);
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
    expect(await waitUntilGone(pid)).toEqual([]);
  });
});
