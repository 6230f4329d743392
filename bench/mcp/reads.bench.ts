/**
 * `npm run bench:reads`: reading a page as a model's MCP client does, on synthetic pages that
 * grow in one dimension, against @playwright/mcp's `browser_snapshot` in the same run: both
 * servers stdio children of the SDK's client, the same Chromium, switches and 1280×720 (the
 * servers of bench/mcp/servers.ts). Two series:
 *
 * - links: one paragraph and N links in one parent (1,000 to 64,000): before issue 44 each
 *   link's identity read its parent's whole text, and 16,000 links took 10.8 s;
 * - nodes: N elements of an ordinary page (1 to 100,000), sections of a heading, a paragraph
 *   with bold text and a link, a list, a small table and a button.
 *
 * Per page: open on both (untimed), one untimed read each, then BENCH_RUNS timed reads in
 * alternating order; medians. Ours is `read {fresh: true}` (the whole capture, the part in view
 * answered), then `read {part: 2}` where there are parts (from the same capture). Printed: each
 * time, ours / theirs, and µs per element, which stays flat when a read is linear.
 *
 *   npm run bench:reads                  BENCH_RUNS=3 (default), BENCH_SERIES=links,nodes
 *   BENCH_LINKS=1000,4000 BENCH_NODES=10,1000 npm run bench:reads
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { resolveExecutable } from "../../lib/browser/executable.js";
import { median } from "../median.js";
import { sharedChromiumArgs } from "../snapshot/engines.js";
import { type McpSide, startPlaywrightMcp, startWayfarerMcp } from "./servers.js";

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback).split(",").filter(Boolean).map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SERIES = (process.env.BENCH_SERIES ?? "links,nodes").split(",");
const SIZES = {
  links: list("BENCH_LINKS", "1000,2000,4000,8000,16000,32000,64000"),
  nodes: list("BENCH_NODES", "1,10,100,1000,10000,100000"),
};

/** One section of the ordinary page: 12 elements. */
const section = (i: number) =>
  `<section><h3>Item ${i}</h3><p>About item ${i}, <b>in stock</b>, see <a href="/i${i}">its page</a>.</p><ul><li>Size ${i % 7}</li><li>Colour ${i % 5}</li></ul><table><tr><td>Price</td><td>${i}.00</td></tr></table><button>Buy ${i}</button></section>`;
const SECTION_ELEMENTS = 12;

const PAGES: Record<string, (n: number) => string> = {
  links: (n) =>
    `<p>One paragraph.</p>${Array.from({ length: n }, (_, i) => `<a href="/l${i}">Link number ${i}</a> `).join("")}`,
  nodes: (n) =>
    n < SECTION_ELEMENTS
      ? Array.from({ length: n }, (_, i) => `<p>Paragraph ${i}</p>`).join("")
      : Array.from({ length: Math.round(n / SECTION_ELEMENTS) }, (_, i) => section(i)).join(""),
};

const site = createServer((req, res) => {
  const [, series, size] = req.url?.split("/") ?? [];
  const make = PAGES[series ?? ""];
  const n = Number(size);
  if (!make || !Number.isFinite(n)) return void res.writeHead(404).end();
  res
    .writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end(
      `<!doctype html><html><head><title>${series} ${n}</title></head><body>${make(n)}</body></html>`,
    );
});
await new Promise<void>((done) => site.listen(0, "127.0.0.1", () => done()));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const executable = await resolveExecutable({ headful: false });
const shared = await sharedChromiumArgs();
const ours = await startWayfarerMcp(executable, []);
const theirs = await startPlaywrightMcp(executable, shared);
const PARTS = /\(part (\d+) of (\d+)/;

const timed = async (work: () => Promise<unknown>) => {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
};

console.log(
  `reads, median of ${RUNS} after one untimed each, alternating; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ")}`,
);
try {
  for (const series of SERIES) {
    console.log(
      `\n${series}        ours read   part 2   Playwright MCP   ours / theirs   µs per element (ours / theirs)`,
    );
    for (const n of SIZES[series as keyof typeof SIZES] ?? []) {
      const url = `${base}/${series}/${n}`;
      try {
        await readBoth(series, n, url);
      } catch (error) {
        const message =
          error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
        console.log(`${String(n).padStart(8)}   failed: ${message}`);
      }
    }
  }
} finally {
  await ours.close();
  await theirs.close();
  site.close();
}

/** One page: both servers read it, timed; a line of the table. */
async function readBoth(series: string, n: number, url: string): Promise<void> {
  const times = new Map<McpSide, number[]>([
    [ours, []],
    [theirs, []],
  ]);
  const order = [ours, theirs];
  for (const side of order) await side.open(url);
  let first = "";
  for (const side of order) {
    const text = await side.read();
    if (side === ours) first = text;
  }
  for (let i = 0; i < RUNS; i++) {
    for (const side of i % 2 === 0 ? order : [...order].reverse()) {
      times.get(side)!.push(await timed(() => side.read()));
    }
  }
  const parts = Number(PARTS.exec(first)?.[2] ?? 1);
  const part =
    parts > 1
      ? `${(await timed(() => ours.allParts(first.replace(PARTS, "(part 1 of 2")))).toFixed(0)}`
      : "";
  const a = median(times.get(ours)!);
  const b = median(times.get(theirs)!);
  const elements = series === "links" ? n + 1 : n;
  console.log(
    `${String(n).padStart(8)} ${`${a.toFixed(0)} ms`.padStart(13)} ${part ? `${part} ms`.padStart(8) : "       –"} ${`${b.toFixed(0)} ms`.padStart(16)} ${`${(a / b).toFixed(2)}×`.padStart(15)}   ${((a * 1000) / elements).toFixed(1)} / ${((b * 1000) / elements).toFixed(1)}`,
  );
}
