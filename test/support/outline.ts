/**
 * Snapshot helpers for tests: take one with a bounded wait, and check an outline against its
 * fixture pages: every element marked `data-ref` in the fixture's source gets exactly one id,
 * each id's selector resolves through deepLocator to the element with that ref, and every text
 * the browser renders in any frame appears in the outline.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Client } from "../../lib/index.js";
import { Logger } from "../../lib/log.js";
import { type Snapshot, type SnapshotRequest, takeSnapshot } from "../../lib/snapshot/snapshot.js";
import { withTimeout } from "../../lib/timeout.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");

export function snapshotOf(
  client: Client,
  request: Partial<SnapshotRequest> = {},
): Promise<Snapshot> {
  const page = client.context.activePage()!.playwrightPage;
  const logger = new Logger({ verbose: 0, disablePino: true });
  return withTimeout("snapshot (test)", 30_000, "the snapshot", (deadline) =>
    takeSnapshot(page, { domSettleTimeout: 10_000, ...request }, deadline, logger),
  );
}

/** The `data-ref` values written in fixture files (shadow content included, in scripts). */
export function refsIn(...files: string[]): string[] {
  const refs: string[] = [];
  for (const file of files) {
    const source = readFileSync(join(FIXTURES, file), "utf8");
    for (const m of source.matchAll(/data-ref=(?:"([^"]+)"|'([^']+)')/g)) refs.push(m[1] ?? m[2]!);
  }
  return refs;
}

/** The outline line of each id: `[12] button "Send"` → 12 → the line. */
export function linesById(snapshot: Snapshot): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of snapshot.text.split("\n")) {
    const m = line.match(/^\s*\[(\d+)\] /);
    if (m) map.set(m[1]!, line.trim());
  }
  return map;
}

/** Each id resolves to the element with the ref its line names, and every ref has one id. */
export async function expectIdsResolve(
  client: Client,
  snapshot: Snapshot,
  expected: string[],
): Promise<void> {
  const page = client.context.activePage()!;
  const lines = linesById(snapshot);
  expect([...lines.keys()].sort()).toEqual(Object.keys(snapshot.selectors).sort());
  const found: string[] = [];
  for (const [id, selector] of Object.entries(snapshot.selectors)) {
    const ref = await page.deepLocator(selector).getAttribute("data-ref", { timeout: 5_000 });
    expect(ref, `id ${id} (${lines.get(id)}) → ${selector}`).not.toBeNull();
    expect(lines.get(id)!.toLowerCase(), `line of id ${id}`).toContain(ref!.toLowerCase());
    found.push(ref!);
  }
  expect(found.sort()).toEqual([...expected].sort());
}

/**
 * Every piece of text the browser renders in any frame (its innerText) is in the outline: its
 * words, in order (inline runs the browser shows on one line may be lines of their own here).
 */
export async function expectVisibleTextIn(client: Client, snapshot: Snapshot): Promise<void> {
  const outline = snapshot.text;
  for (const frame of client.context.activePage()!.playwrightPage.frames()) {
    // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point here
    const text: string = await frame.evaluate(() => document.body?.innerText ?? "");
    for (const piece of text.split(/[\n\t]+/)) {
      let at = 0;
      for (const word of piece.split(/\s+/).filter(Boolean)) {
        const found = outline.indexOf(word, at);
        expect(found, `"${word}" of "${piece}" in ${frame.url()}`).toBeGreaterThanOrEqual(0);
        at = found + word.length;
      }
    }
  }
}
