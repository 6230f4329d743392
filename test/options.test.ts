import { describe, expect, it } from "vitest";
import { ProxySchema, V3OptionsSchema } from "../lib/options.js";
import { secretsOf, urlSecrets } from "../lib/secrets.js";

describe("options", () => {
  it("moves proxy credentials out of the server URL (Chromium ignores them there)", () => {
    expect(ProxySchema.parse({ server: "http://u%40x:p%3Ass@127.0.0.1:3128" })).toEqual({
      server: "http://127.0.0.1:3128",
      username: "u@x",
      password: "p:ss",
    });
    expect(
      ProxySchema.parse({ server: "http://a:b@h:1", username: "given", password: "kept" }),
    ).toMatchObject({
      server: "http://h:1",
      username: "given",
      password: "kept",
    });
    expect(ProxySchema.parse({ server: "socks5://127.0.0.1:1080" })).toEqual({
      server: "socks5://127.0.0.1:1080",
    });
    expect(ProxySchema.parse({ server: "user:hunter22@proxy.test:3128" })).toEqual({
      server: "proxy.test:3128",
      username: "user",
      password: "hunter22",
    });
  });

  it("takes from a URL its userinfo and key-like query values only", () => {
    expect(
      urlSecrets("wss://tok-abc@b.test/x?headless=true&apiKey=k-1234&sessionToken=s-5678"),
    ).toEqual(["tok-abc", "k-1234", "s-5678"]);
  });

  it("collects every secret the client could meet", () => {
    const options = V3OptionsSchema.parse({
      env: "LOCAL",
      apiKey: "svc-key-1",
      model: {
        modelName: "openai/x",
        apiKey: "model-key-2",
        headers: { "x-custom-token": "header-secret-3", "x-title": "Shop" },
      },
      localBrowserLaunchOptions: {
        cdpUrl: "wss://user:cdp-pass-4@browser.test/devtools?token=cdp-token-5",
        proxy: { server: "http://p:proxy-pass-6@127.0.0.1:1" },
      },
    });
    const secrets = secretsOf(options, { CRON_SECRET: "cron-7", OPENAI_API_KEY: "openai-8" });
    // A plain header value is not a credential: scrubbing "Shop" would garble every line.
    expect(secrets).not.toContain("Shop");
    expect(secrets).toEqual(
      expect.arrayContaining([
        "svc-key-1",
        "model-key-2",
        "header-secret-3",
        "cdp-pass-4",
        "cdp-token-5",
        "proxy-pass-6",
        "cron-7",
        "openai-8",
      ]),
    );
  });
});
