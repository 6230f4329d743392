/**
 * The clouds' host services through the real service, on every way a key holder has to send a
 * request: the navigate route, a page's own sub-requests (fetch, whatever its spelling), a CDP
 * client's `Page.navigate` and `Network.loadNetworkResource`, a model's baseURL. None reaches
 * Azure's WireServer, Alibaba's or any metadata address, even where the operator's
 * WAYFARER_ALLOW_HOSTS lets every address through (0.0.0.0/0 and ::/0 here): the table is not
 * something a setting opens. The egress guard answers a refused sub-request itself (403), so a
 * page never learns whether the address would have answered.
 */
import { describe, expect, it } from "vitest";
import { STRICT_RULE } from "../../../lib/net/addressRule.js";
import { answerText, evaluate, openPage } from "../../support/cdpClient.js";
import { cdpSession } from "../../support/sandbox.js";
import { useService } from "../../support/service.js";
import { useStaticServer } from "../../support/staticServer.js";

const service = useService({
  rule: {
    ...STRICT_RULE,
    allowHosts: ["0.0.0.0/0", "::/0"],
    allowedBy: "WAYFARER_ALLOW_HOSTS",
  },
});
const pages = useStaticServer();
const METADATA = /link-local or cloud metadata address/;
const WIRESERVER = [
  "http://168.63.129.16/machine/?comp=goalstate",
  "http://2822734096/machine/?comp=goalstate",
  "http://0250.077.0201.020/machine/?comp=goalstate",
  "http://0xa83f8110/machine/?comp=goalstate",
  "http://[::ffff:a83f:8110]/machine/?comp=goalstate",
  "http://[::ffff:168.63.129.16]/machine/?comp=goalstate",
];
const OTHERS = [
  "http://100.100.100.200/latest/meta-data/",
  "http://192.0.0.192/opc/v1/instance/",
  "http://[fd00:ec2::254]/latest/meta-data/",
  "http://169.254.170.2/v2/credentials/",
  "http://metadata.google.internal./computeMetadata/v1/",
];

describe("cloud host services, under a rule that lets every address through", () => {
  it("the navigate route refuses each, in every spelling, and names no setting", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      for (const url of [...WIRESERVER, ...OTHERS]) {
        const refused = await service.call("POST", `/v1/sessions/${id}/navigate`, {
          body: { url },
        });
        expect(refused.status, url).toBe(400);
        expect(refused.body.message, url).toMatch(METADATA);
        expect(refused.body.message).not.toContain("WAYFARER_ALLOW_HOSTS");
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });

  it("a page's sub-requests and a CDP client's requests are answered 403 by the guard, never sent", async () => {
    const s = await cdpSession(service);
    try {
      const { sessionId, targetId } = await openPage(s.cdp, pages.url("basic.html"));
      await s.cdp.send("Network.enable", {}, sessionId);
      for (const url of [...WIRESERVER, ...OTHERS.slice(0, 3)]) {
        const before = s.cdp.events.length;
        await evaluate(
          s.cdp,
          sessionId,
          `fetch(${JSON.stringify(url)}, { mode: "no-cors" }).then(() => 1, () => 0)`,
        );
        const seen = await s.cdp.waitForEvent(
          "Network.responseReceived",
          (e) => s.cdp.events.indexOf(e) >= before && e.params.response.url === new URL(url).href,
          10_000,
        );
        expect(seen.params.response.status, url).toBe(403);
      }
      const loaded = await s.cdp.answer(
        "Network.loadNetworkResource",
        {
          frameId: targetId,
          url: WIRESERVER[1],
          options: { disableCache: true, includeCredentials: false },
        },
        sessionId,
      );
      const text = answerText(loaded);
      // Refused by the CDP policy, or loaded through the guard as its 403.
      expect(text.includes("Wayfarer refuses") || /"httpStatusCode":403/.test(text), text).toBe(
        true,
      );
      const navigated = await s.cdp.answer("Page.navigate", { url: WIRESERVER[4] }, sessionId);
      if ("error" in navigated) {
        expect(navigated.error.message).toMatch(METADATA);
      } else {
        await new Promise((r) => setTimeout(r, 500));
        expect(await evaluate(s.cdp, sessionId, "document.body?.innerText ?? ''")).toMatch(
          /Refused by the egress rule: it is a link-local or cloud metadata address/,
        );
      }
    } finally {
      await s.end();
    }
  });

  it("a model's baseURL at the WireServer is refused before any request", async () => {
    const started = await service.call("POST", "/v1/sessions/start", { body: {} });
    const id = started.body.data.sessionId as string;
    try {
      for (const baseURL of ["http://168.63.129.16/v1", "http://[::ffff:6464:64c8]/v1"]) {
        const refused = await service.call("POST", `/v1/sessions/${id}/extract`, {
          body: {
            instruction: "the title",
            options: { model: { modelName: "openai/gpt-4.1-mini", baseURL } },
          },
          headers: { "x-model-api-key": "sk-host-services-0123456789" },
        });
        expect(refused.status, baseURL).toBe(400);
        expect(refused.body.message, baseURL).toContain("options.model.baseURL");
        expect(refused.body.message, baseURL).toMatch(METADATA);
      }
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
