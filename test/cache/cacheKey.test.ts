/** What makes two calls the same call, and what never goes into a key. */
import { describe, expect, it } from "vitest";
import { CACHE_KEY_VERSION, cacheKey, normalisedUrl } from "../../lib/cache/cacheKey.js";

const base = {
  method: "act" as const,
  instruction: "click the Sign in button",
  url: "https://shop.test/login?b=2&a=1",
};
const key = (extra: Partial<Parameters<typeof cacheKey>[0]> = {}) =>
  cacheKey({ ...base, ...extra }).value;

describe("cache keys", () => {
  it("name the method and the version, and are the same for the same call", () => {
    expect(key()).toMatch(new RegExp(`^act-v${CACHE_KEY_VERSION}-[0-9a-f]{32}$`));
    expect(key()).toBe(key());
    expect(key({ instruction: "  click   the Sign in button " })).toBe(key());
    expect(key({ method: "observe" })).not.toBe(key());
    expect(key({ instruction: "click the Sign up button" })).not.toBe(key());
  });

  it("read the URL without its order, fragment, user info or tracking parameters", () => {
    expect(normalisedUrl("https://u:p@shop.test/x?b=2&utm_source=m&a=1&gclid=z#top")).toBe(
      "https://shop.test/x?a=1&b=2",
    );
    expect(key({ url: "https://shop.test/login?a=1&b=2&fbclid=q#f" })).toBe(key());
    expect(key({ url: "https://shop.test/login?a=1&b=3" })).not.toBe(key());
    // A parameter the configuration calls volatile is dropped too.
    expect(
      key({ url: "https://shop.test/login?a=1&b=2&session=9", ignoreParameters: ["session"] }),
    ).toBe(key({ ignoreParameters: ["session"] }));
  });

  it("take the variables' names, never their values", () => {
    const one = cacheKey({ ...base, variables: { password: "hunter2-secret" } });
    expect(one.value).toBe(key({ variables: { password: "other-value" } }));
    expect(one.value).not.toBe(key({ variables: { pin: "hunter2-secret" } }));
    expect(JSON.stringify(one.parts)).not.toContain("hunter2-secret");
  });

  it("sign the model without its key, headers or URL credentials", () => {
    const model = {
      modelName: "openai/gpt-4.1-mini",
      apiKey: "sk-secret-key-123456",
      baseURL: "https://u:pw@proxy.test/v1?key=k-123456",
      headers: { "x-api-key": "h-123456" },
    };
    const signed = cacheKey({ ...base, model });
    expect(JSON.stringify(signed.parts)).not.toMatch(/sk-secret|pw@|k-123456|h-123456/);
    expect(signed.value).toBe(key({ model: { ...model, apiKey: "sk-another-key-654321" } }));
    expect(signed.value).not.toBe(key({ model: { ...model, modelName: "openai/gpt-4.1" } }));
    expect(key({ model: "openai/gpt-4.1-mini" })).not.toBe(key());
  });

  it("take the options that change the outcome, in any order", () => {
    expect(key({ options: { selector: "//main", ignoreSelectors: ["nav"] } })).toBe(
      key({ options: { ignoreSelectors: ["nav"], selector: "//main", timeout: undefined } }),
    );
    expect(key({ options: { selector: "//aside" } })).not.toBe(
      key({ options: { selector: "//main" } }),
    );
  });
});
