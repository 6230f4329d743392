/**
 * `npm run demo` and `npm run demo:remote`, as a newcomer runs them: the whole job offline, the
 * second through a service started on 127.0.0.1, each answering ok with the cart's text and
 * leaving no process behind.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

describe("the demo", () => {
  for (const args of [[], ["--remote"]]) {
    it(`npm run demo${args.length ? ":remote" : ""} answers ok offline`, async () => {
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", join(ROOT, "scripts", "demo.ts"), ...args],
        { cwd: ROOT, timeout: 60_000, env: { ...process.env, WAYFARER_API_KEY: "" } },
      );
      const answer = JSON.parse(stdout.trim().split("\n").at(-1)!);
      expect(answer).toMatchObject({ ok: true, data: "Cart: black tea", demo: true });
      // Each step says what it does.
      expect(stdout).toContain("… act: add black tea to the cart");
      expect(stdout).toContain("… extract: what is in the cart");
      if (args.length) expect(stdout).toContain("the browser is a session of the service");
    });
  }
});
