/**
 * One rule decides which names hold credentials, for configuration fields, headers, query
 * parameters and log fields alike; it also runs over extracted data, so it must stay narrow.
 */
import { describe, expect, it } from "vitest";
import { Logger } from "../lib/log.js";
import { looksLikeSecretName, secretHeaderValues, urlSecrets } from "../lib/secrets.js";

const SECRET = [
  "apiKey",
  "api_key",
  "x-api-key",
  "x-goog-api-key",
  "Ocp-Apim-Subscription-Key",
  "key",
  "private_key",
  "accessKey",
  "client_secret",
  "password",
  "passwd",
  "token",
  "access_token",
  "X-Amz-Security-Token",
  "X-Amz-Signature",
  "X-Amz-Credential",
  "Authorization",
  "x-auth",
  "cookie",
  "Set-Cookie",
  "sig",
  "jwt",
];
const PLAIN = [
  "promptTokens",
  "cachedInputTokens",
  "tokenBudget",
  "keys",
  "keyboard",
  "author",
  "sessionId",
  "browserbaseSessionID",
  "headless",
  "monkey",
  "description",
];

describe("the rule for secret names", () => {
  it.each(SECRET)("%s holds a credential", (name) => expect(looksLikeSecretName(name)).toBe(true));
  it.each(PLAIN)("%s does not", (name) => expect(looksLikeSecretName(name)).toBe(false));

  it("is the same for headers, URL parameters and log fields", () => {
    expect(secretHeaderValues({ "x-api-key": "k-1", "x-shop": "Shop" })).toEqual(["k-1"]);
    expect(urlSecrets("wss://h.test/cdp?token=t-123&headless=true&sig=s-123")).toEqual([
      "t-123",
      "s-123",
    ]);
    const lines: unknown[] = [];
    const logger = new Logger({ verbose: 2, disablePino: true, logger: (l) => lines.push(l) });
    logger.info("x", "m", { apiKey: "abcd-1234", promptTokens: 12, author: "Jane", keys: ["A"] });
    expect(lines).toMatchObject([
      { auxiliary: { apiKey: "[REDACTED]", promptTokens: 12, author: "Jane", keys: ["A"] } },
    ]);
  });
});
