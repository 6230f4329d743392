/**
 * Outlines over the token budget are cut into chunks that callers walk with next/previous.
 * Chunks are consecutive runs of outline lines, so each follows the page from top to bottom
 * as the document flows; each starts with the page's title line and the lines of its first
 * node's ancestors, so that a chunk read alone still says which page it is and where on it
 * (in which frame, form or dialog). A single line over the budget (a huge text) is cut into
 * pieces.
 */
import { estimateTokens, pieceEnd } from "../tokens.js";
import type { OutlineLine } from "./outline.js";

/** Default token budget of one chunk (see docs/guide/extract.md, "Chunks"). */
export const DEFAULT_TOKEN_BUDGET = 12_000;

export { estimateTokens };

export interface Chunk {
  index: number;
  text: string;
  /** Estimated tokens of `text`. */
  tokens: number;
  /** Vertical extent of its lines on the page, CSS px. */
  top: number;
  bottom: number;
}

/**
 * How full a chunk is filled, by the estimate: a part of rare names (a results table of Indian
 * towns) runs up to 10 % over its estimate in o200k tokens, and a part must not pass its budget.
 */
const FILL = 0.9;

/**
 * `head`: the line every chunk starts with (the page's title line), if any. Each line is
 * estimated once, and a chunk is filled by its lines' estimates and one per line break: at
 * least the estimate of its text as a whole (each line's is rounded up), which it reports.
 */
export function chunkOutline(outline: OutlineLine[], tokenBudget: number, head?: string): Chunk[] {
  const budget = Math.max(1, Math.floor(tokenBudget * FILL));
  const headTokens = head === undefined ? 0 : estimateTokens(head);
  const costs: number[] = [];
  // A line over the budget is cut to fit beside what opens its chunk (the head, its ancestors).
  const lines = outline.flatMap((line, index) => {
    const cost = estimateTokens(line.text);
    if (cost <= budget) {
      costs.push(cost);
      return [line];
    }
    const opening = [
      ...(head === undefined ? [] : [head]),
      ...ancestorsOf(outline, index).map((l) => l.text),
    ];
    const pieces = splitLong(line, Math.max(1, budget - estimateTokens(opening.join("\n")) - 1));
    for (const piece of pieces) costs.push(estimateTokens(piece.text));
    return pieces;
  });
  const chunks: Chunk[] = [];
  let i = 0;
  if (lines.length === 0 && head !== undefined) {
    return [{ index: 0, text: head, tokens: headTokens, top: 0, bottom: 0 }];
  }
  while (i < lines.length) {
    const context = ancestorIndexes(lines, i);
    const parts = [...(head === undefined ? [] : [head]), ...context.map((k) => lines[k]!.text)];
    let tokens = headTokens + context.reduce((sum, k) => sum + costs[k]!, 0) + parts.length - 1;
    let top = Number.POSITIVE_INFINITY;
    let bottom = Number.NEGATIVE_INFINITY;
    const first = i;
    while (i < lines.length) {
      const line = lines[i]!;
      const cost = costs[i]! + (parts.length ? 1 : 0);
      if (i > first && tokens + cost > budget) break;
      parts.push(line.text);
      tokens += cost;
      top = Math.min(top, line.top);
      bottom = Math.max(bottom, line.top);
      i++;
    }
    const text = parts.join("\n");
    chunks.push({ index: chunks.length, text, tokens: estimateTokens(text), top, bottom });
  }
  return chunks;
}

/** The chunk holding the top of the viewport, or the first one. */
export function startChunk(chunks: Chunk[], viewport: { top: number }): number {
  const found = chunks.findIndex((c) => c.bottom >= viewport.top);
  return found === -1 ? 0 : found;
}

/** Walks the chunks of a snapshot from where the viewport is. */
export class ChunkWalker {
  private position: number;

  constructor(
    private readonly chunks: readonly Chunk[],
    start = 0,
  ) {
    this.position = Math.min(Math.max(start, 0), Math.max(chunks.length - 1, 0));
  }

  current(): Chunk | undefined {
    return this.chunks[this.position];
  }

  /** The next chunk down the page, or undefined at the last one (the position stays). */
  next(): Chunk | undefined {
    if (this.position >= this.chunks.length - 1) return undefined;
    return this.chunks[++this.position];
  }

  /** The chunk before, or undefined at the first one (the position stays). */
  previous(): Chunk | undefined {
    if (this.position <= 0) return undefined;
    return this.chunks[--this.position];
  }
}

/** A line over the budget on its own (a huge text) is cut into pieces that fit `budget`. */
function splitLong(line: OutlineLine, budget: number): OutlineLine[] {
  const indent = " ".repeat(depthOf(line.text));
  const body = line.text.slice(indent.length);
  // Tokens per piece, leaving room for the indentation and the estimate's rounding; counted by
  // script (a piece of Chinese holds about a third of the characters of one of English).
  const room = Math.max(1, budget - 2 - estimateTokens(indent));
  const pieces: OutlineLine[] = [];
  for (let i = 0; i < body.length; ) {
    const end = pieceEnd(body, i, room);
    // A piece starting with a space would read as nested one deeper (its own heading's child).
    pieces.push({ text: indent + body.slice(i, end).trimStart(), top: line.top });
    i = end;
  }
  return pieces;
}

function depthOf(text: string): number {
  let n = 0;
  while (text.charCodeAt(n) === 32) n++;
  return n;
}

function ancestorsOf(lines: OutlineLine[], index: number): OutlineLine[] {
  return ancestorIndexes(lines, index).map((k) => lines[k]!);
}

/** Where the lines `index` is nested in are, outermost first. */
function ancestorIndexes(lines: OutlineLine[], index: number): number[] {
  const chain: number[] = [];
  let depth = depthOf(lines[index]?.text ?? "");
  for (let j = index - 1; j >= 0 && depth > 0; j--) {
    const d = depthOf(lines[j]!.text);
    if (d < depth) {
      chain.unshift(j);
      depth = d;
    }
  }
  return chain;
}

/**
 * The chunks one call may send to the model, at most `cap` of them (in the order given): a huge
 * page costs a bounded number of model calls. `onCut` is told how many were left unread.
 */
export function withinCap<T>(parts: T[], cap: number, onCut: (read: number) => void): T[] {
  if (parts.length <= cap) return parts;
  onCut(cap);
  return parts.slice(0, cap);
}
