import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceTimeoutError } from "../../lib/index.js";
import { describePage } from "../../lib/job/describePage.js";
import { failure } from "../support/failure.js";

let stalled: Server;
let stalledUrl: string;
beforeAll(async () => {
  // Answers nothing, ever: the page never reaches DOMContentLoaded.
  stalled = createServer(() => {});
  await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
  stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/`;
});
afterAll(() => {
  stalled.closeAllConnections();
  stalled.close();
});

describe("describePage", () => {
  it("answers within its budget when the page never loads, and leaves no browser behind", async () => {
    const started = Date.now();
    const error = await failure(
      describePage(stalledUrl, { budgetMs: 2_000, client: { disablePino: true } }),
    );
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    // Whichever fires first, the step's own limit (what was left of the budget) or the budget.
    expect(error.message).toMatch(/^(goto|describePage): \d+ ms passed waiting for/);
    // The promise is the budget; the margin covers a forced close on a loaded machine.
    expect(Date.now() - started).toBeLessThan(2_000 + 5_000);
  });

  it("keeps its budget even when it runs out during the launch", async () => {
    const started = Date.now();
    const error = await failure(
      describePage(stalledUrl, { budgetMs: 20, client: { disablePino: true } }),
    );
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toContain("steps: init");
    expect(Date.now() - started).toBeLessThan(20 + 5_000);
  });
});
