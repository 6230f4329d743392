import { describe, expect, it } from "vitest";
import {
  ChunkWalker,
  chunkOutline,
  estimateTokens,
  startChunk,
} from "../../lib/snapshot/chunks.js";
import type { OutlineLine } from "../../lib/snapshot/outline.js";
import { hideVariables } from "../../lib/variables.js";
import { useClients } from "../support/clients.js";
import { snapshotOf } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

function outline(depths: number[]): OutlineLine[] {
  return depths.map((d, i) => ({
    text: `${"  ".repeat(d)}line ${i} ${"word ".repeat(5)}`,
    top: i * 100,
  }));
}

describe("chunks (pure)", () => {
  it("cuts consecutive lines within the budget, each chunk opened by its first line's ancestors", () => {
    const lines = outline([0, 1, 2, 2, 2, 1, 2, 2, 0, 1, 1, 1]);
    const budget = 40;
    const chunks = chunkOutline(lines, budget);
    expect(chunks.length).toBeGreaterThan(2);
    const seen: string[] = [];
    for (const chunk of chunks) {
      expect(chunk.tokens).toBe(estimateTokens(chunk.text));
      expect(chunk.tokens).toBeLessThanOrEqual(budget);
      const context = contextCount(chunk.text, lines, seen);
      const own = chunk.text.split("\n").slice(context);
      // The lines before its own are exactly its first line's ancestors, outermost first.
      const first = lines.findIndex((l) => l.text === own[0]);
      expect(chunk.text.split("\n").slice(0, context)).toEqual(ancestorsOf(lines, first));
      seen.push(...own);
    }
    // Every line exactly once, in order, across the chunks' own lines.
    expect(seen).toEqual(lines.map((l) => l.text));
  });

  it("opens every chunk with the head line (the page's title), counted in the budget", () => {
    const lines = outline([0, 1, 2, 2, 2, 1, 2, 2, 0, 1, 1, 1]);
    const head = 'document "A page"';
    const chunks = chunkOutline(lines, 40, head);
    expect(chunks.length).toBeGreaterThan(2);
    const seen: string[] = [];
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(40);
      const [first, ...rest] = chunk.text.split("\n");
      expect(first).toBe(head);
      const context = contextCount(rest.join("\n"), lines, seen);
      seen.push(...rest.slice(context));
    }
    expect(seen).toEqual(lines.map((l) => l.text));
    // An empty page is one chunk: its title line.
    expect(chunkOutline([], 40, head).map((c) => c.text)).toEqual([head]);
  });

  it("cuts a line longer than the budget into pieces that fit", () => {
    const lines: OutlineLine[] = [
      { text: "short", top: 0 },
      { text: `  ${"x".repeat(400)}`, top: 10 },
      { text: "after", top: 20 },
    ];
    const chunks = chunkOutline(lines, 20);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(20);
    // Every piece of the long line, once, in order; "short" opens each chunk as its ancestor.
    const xs = chunks.map((c) => c.text.replace(/[^x]/g, "")).join("");
    expect(xs).toBe("x".repeat(400));
    expect(chunks.at(-1)!.text.endsWith("\nafter")).toBe(true);
    expect(chunks.slice(1, -1).every((c) => c.text.startsWith("short\n  x"))).toBe(true);
  });

  it("starts at the chunk holding the top of the viewport and walks both ways", () => {
    const chunks = chunkOutline(outline([0, 0, 0, 0, 0, 0, 0, 0]), 20);
    expect(startChunk(chunks, { top: 0 })).toBe(0);
    // The first chunk with anything at or below the viewport's top.
    const middle = startChunk(chunks, { top: 450 });
    expect(chunks[middle]!.bottom).toBeGreaterThanOrEqual(450);
    expect(chunks[middle - 1]!.bottom).toBeLessThan(450);
    expect(startChunk(chunks, { top: 99_999 })).toBe(0);
    const walker = new ChunkWalker(chunks, middle);
    expect(walker.current()).toBe(chunks[middle]);
    expect(walker.next()).toBe(chunks[middle + 1]);
    expect(walker.previous()).toBe(chunks[middle]);
    while (walker.next());
    expect(walker.current()).toBe(chunks[chunks.length - 1]);
    expect(walker.next()).toBeUndefined();
    while (walker.previous());
    expect(walker.current()).toBe(chunks[0]);
  });
});

function ancestorsOf(lines: OutlineLine[], index: number): string[] {
  const depth = (l: OutlineLine) => l.text.length - l.text.trimStart().length;
  const chain: string[] = [];
  let d = depth(lines[index]!);
  for (let j = index - 1; j >= 0; j--) {
    if (depth(lines[j]!) < d) {
      chain.unshift(lines[j]!.text);
      d = depth(lines[j]!);
    }
  }
  return chain;
}

/** How many of a chunk's first lines repeat lines already seen (the ancestor context). */
function contextCount(text: string, lines: OutlineLine[], seen: string[]): number {
  let n = 0;
  for (const line of text.split("\n")) {
    if (seen.includes(line) && lines.some((l) => l.text === line)) n++;
    else break;
  }
  return n;
}

describe("chunks of a real page", () => {
  const server = useStaticServer();
  const clients = useClients();

  it("orders chunks down the page and starts where the viewport is", async () => {
    const client = await clients.open({
      localBrowserLaunchOptions: { viewport: { width: 800, height: 300 } },
    });
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/form.html"));
    const top = await snapshotOf(client, { tokenBudget: 80 });
    expect(top.chunks.length).toBeGreaterThan(3);
    expect(top.startChunk).toBe(0);
    expect(top.text.split("\n")[0]).toBe('document "Form fixture"');
    expect(top.chunks.every((c) => c.text.startsWith('document "Form fixture"\n'))).toBe(true);
    for (let i = 1; i < top.chunks.length; i++) {
      expect(top.chunks[i]!.top).toBeGreaterThanOrEqual(top.chunks[i - 1]!.top);
    }
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
    const bottom = await snapshotOf(client, { tokenBudget: 80 });
    expect(bottom.startChunk).toBeGreaterThan(0);
    expect(bottom.chunks[bottom.startChunk]!.text).not.toContain("Checkout form");
    // The whole outline is unchanged by scrolling; only where a walk starts moves.
    expect(bottom.text).toBe(top.text);
  });
});

describe("chunks of a page showing a typed value", () => {
  const server = useStaticServer();
  const clients = useClients();

  it("hides the value before a long line is cut: no piece carries a part of it", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("secrets/echo.html"));
    const secret = "Tr0ub4dor-0123456789-xyz";
    await page.playwrightPage.locator("#token").fill(secret);
    const mask = (text: string) => hideVariables(text, { secret });
    // Many budgets: some cut falls inside the value wherever the line starts.
    for (let budget = 50; budget <= 70; budget++) {
      const snapshot = await snapshotOf(client, { tokenBudget: budget, mask });
      expect(snapshot.text).toContain("%secret%");
      for (const chunk of snapshot.chunks) {
        expect(chunk.text).not.toContain(secret.slice(0, 6));
        expect(chunk.text).not.toContain(secret.slice(-6));
      }
    }
  });
});
