/**
 * The service as `npm run service` runs it, with warm browsers (WAYFARER_WARM_BROWSERS): SIGTERM
 * ends the waiting browsers with the sessions', also while one is still being launched, and the
 * process exits 0 with none of them left.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  commandLineIfLive,
  isEgressWorker,
  liveDescendants,
  stillRunning,
} from "../support/processes.js";
import { scrape } from "../support/prometheus.js";
import { type ServiceProcess, startService } from "../support/serviceProcess.js";
import { within } from "../support/waiting.js";

const KEY = "key-warm-stop-0123456789abcdef";

let dataDir = "";
let service: ServiceProcess | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "wayfarer-warm-stop-"));
});
afterEach(async () => {
  // A test that failed half-way leaves no service (nor its browsers) to the next one.
  if (service && service.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill("SIGKILL");
    await service.exited;
  }
  service = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

/** The service's browsers: every process under it but its own shell helpers. */
const browsersOf = (running: ServiceProcess) =>
  liveDescendants(running.child.pid!).filter(
    (pid) =>
      pid !== running.child.pid && commandLineIfLive(pid)[0] !== "sh" && !isEgressWorker(pid),
  );

const warmOf = async (running: ServiceProcess) =>
  (await scrape(running.url)).value("wayfarer_warm_browsers") ?? 0;

describe("SIGTERM with warm browsers", () => {
  it("ends the waiting browsers and the sessions' (one of them taken from the pool): none left, exit 0", async () => {
    service = await startService({
      WAYFARER_DATA_DIR: dataDir,
      WAYFARER_API_KEYS: `test:${KEY}`,
      WAYFARER_WARM_BROWSERS: "2",
    });
    const running = service;
    const until = Date.now() + 45_000;
    while ((await warmOf(running)) < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await warmOf(running)).toBe(2);
    const started = await fetch(`${running.url}/v1/sessions/start`, {
      method: "POST",
      headers: { "x-wf-api-key": KEY, "content-type": "application/json" },
      body: "{}",
    }).then((r) => r.json() as Promise<{ success: boolean }>);
    expect(started.success).toBe(true);
    const metrics = await scrape(running.url);
    expect(metrics.value("wayfarer_session_browsers_total", { from: "warm" })).toBe(1);
    // One session's browser, one waiting, one being launched (or launched) in its place.
    const browsers = browsersOf(running);
    expect(browsers.length).toBeGreaterThan(2);
    running.child.kill("SIGTERM");
    expect(await within(25_000, "the service's exit", running.exited)).toBe(0);
    // The processes seen, and any launched after the look: nothing under it any more.
    expect(await stillRunning([...new Set([...browsers, ...browsersOf(running)])])).toEqual([]);
  });

  it("while a warm browser is still being launched: it is ended too, exit 0", async () => {
    service = await startService({
      WAYFARER_DATA_DIR: dataDir,
      WAYFARER_API_KEYS: `test:${KEY}`,
      WAYFARER_WARM_BROWSERS: "1",
    });
    const running = service;
    // The launch under way: its processes appear under the service.
    const seen = new Set<number>();
    const launching = Date.now();
    while (seen.size === 0 && Date.now() - launching < 10_000) {
      for (const pid of browsersOf(running)) seen.add(pid);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(seen.size).toBeGreaterThan(0);
    running.child.kill("SIGTERM");
    const exited = within(25_000, "the service's exit", running.exited);
    // Helpers it starts meanwhile are watched too, until the service is gone.
    while (running.child.exitCode === null && running.child.signalCode === null) {
      for (const pid of browsersOf(running)) seen.add(pid);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await exited).toBe(0);
    expect(await stillRunning([...seen])).toEqual([]);
  });
});
