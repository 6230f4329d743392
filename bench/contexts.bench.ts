/**
 * Issue 45, a context's cost: the library's `init()` (a launch) and `close()` with a context
 * against the same with a fresh profile, in the same run, alternating. The context is a profile
 * that logged in to a loopback site (a session cookie, a lasting cookie, localStorage and an
 * IndexedDB record); `persist` adds the save at close (session cookies read, the profile packed,
 * sealed and renamed into place). Median of BENCH_RUNS; the file's size is printed too.
 *
 *   npm run bench:contexts                 BENCH_RUNS=11 npm run bench:contexts
 */

import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../lib/index.js";
import { median } from "./median.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync"];
process.env.WAYFARER_CONTEXT_KEY ??= "5".repeat(64);

const site = createServer((request, response) => {
  response.setHeader("content-type", "text/html");
  if (request.url === "/login") {
    response.setHeader("set-cookie", [
      "sid=bench-session; Path=/",
      "pref=a; Max-Age=86400; Path=/",
    ]);
  }
  response.end(`<title>site</title><script>
    localStorage.setItem("who", "x".repeat(2000));
    const o = indexedDB.open("kept", 1);
    o.onupgradeneeded = () => o.result.createObjectStore("s");
    o.onsuccess = () => { const t = o.result.transaction("s", "readwrite"); t.objectStore("s").put("y".repeat(5000), "k"); t.oncomplete = () => { document.title = "stored"; }; };
  </script>`);
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const folder = mkdtempSync(join(tmpdir(), "wayfarer-bench-ctx-"));
const file = join(folder, "site.ctx");

const clientWith = (context?: { path: string; persist: boolean }) =>
  new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: { args: QUIET, ...(context ? { context } : {}) },
  });

// The context: one run that logs in and saves.
{
  const client = clientWith({ path: file, persist: true });
  await client.init();
  const page = client.context.activePage()!;
  await page.goto(`${origin}/login`);
  await page.evaluate(
    `new Promise((r) => { const t = () => document.title === "stored" ? r(1) : setTimeout(t, 20); t(); })`,
  );
  await client.close();
}

type Side = "fresh" | "context" | "context, persist";
const times: Record<Side, { init: number[]; close: number[] }> = {
  fresh: { init: [], close: [] },
  context: { init: [], close: [] },
  "context, persist": { init: [], close: [] },
};
const sides: [Side, () => Client][] = [
  ["fresh", () => clientWith()],
  ["context", () => clientWith({ path: file, persist: false })],
  ["context, persist", () => clientWith({ path: file, persist: true })],
];
for (let round = 0; round < RUNS; round++) {
  const order = round % 2 ? [...sides].reverse() : sides;
  for (const [side, make] of order) {
    const client = make();
    let t = performance.now();
    await client.init();
    times[side].init.push(performance.now() - t);
    await client.context.activePage()!.goto(`${origin}/`);
    t = performance.now();
    await client.close();
    times[side].close.push(performance.now() - t);
  }
}

console.log(
  `A context's cost, library LOCAL, median of ${RUNS} alternating rounds; the context file: ${statSync(file).size} bytes sealed`,
);
console.log("| side | init ms | close ms | init ÷ fresh | close ÷ fresh |");
console.log("| --- | ---: | ---: | ---: | ---: |");
const fresh = { init: median(times.fresh.init), close: median(times.fresh.close) };
for (const [side] of sides) {
  const init = median(times[side].init);
  const close = median(times[side].close);
  console.log(
    `| ${side} | ${init.toFixed(0)} | ${close.toFixed(0)} | ${(init / fresh.init).toFixed(2)}× | ${(close / fresh.close).toFixed(2)}× |`,
  );
}
site.close();
rmSync(folder, { recursive: true, force: true });
