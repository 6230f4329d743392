/**
 * For the "remote" vitest project: a service on 127.0.0.1 in the test file's own process (so the
 * model kit's msw answers its model calls as it does the library's), which every client of the
 * behaviour suite reaches as env "REMOTE" (clients.ts, by remoteAddress.ts). The service lets the whole loopback
 * range through, as a local browser reaches it.
 */
import { beforeAll, expect } from "vitest";
import { STRICT_RULE } from "../../lib/net/addressRule.js";
import { serviceConfig } from "../../lib/service/config.js";
import { ENGINE } from "./clients.js";
import { setRemoteServiceUrl } from "./remoteAddress.js";
import { useService } from "./service.js";

const service = useService({
  rule: { ...STRICT_RULE, allowHosts: ["127.0.0.0/8", "localhost", "::1"] },
  maxSessions: 50,
  ratePerMinute: 1_000_000,
  // The behaviour suite sets what a library client may (outline budgets down to 100, many pages).
  limits: {
    ...serviceConfig({}).limits,
    projectSessions: 50,
    minOutlineTokenBudget: 100,
    maxChunksPerCall: 1_000,
    maxPages: 1_000,
  },
});

beforeAll(() => {
  // Workers keep modules from file to file: one that ran a local file first must not be reused.
  expect(ENGINE, "the engine clients.ts chose in this worker").toBe("remote");
  setRemoteServiceUrl(service.url);
});
