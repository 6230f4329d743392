/**
 * Joins the captured frames into one outline: each child frame's lines go under its iframe line,
 * ids are numbered in document order across frames, and each id's selector runs through the
 * iframe elements it lives in.
 */
import type { ElementIdentity } from "../api/operations.js";
import type { CapturedFrame } from "./captureFrames.js";
import { finishLine, type Mask } from "./quoting.js";

export interface OutlineLine {
  /** The line as written in the outline: indentation, `[id]` for elements that get one, text. */
  text: string;
  /** Distance from the top of the page, CSS px (frames offset by their iframe's position). */
  top: number;
}

export interface Outline {
  /** The title line, then one line per meaningful node, two spaces per level. */
  text: string;
  /** `document "<the page's title>"`: what the page is, first in the text and in every chunk. */
  titleLine: string;
  /** The lines below the title line. */
  lines: OutlineLine[];
  /** Element id → selector (`xpath=` + absolute XPath through iframes, `//` at shadow roots). */
  selectors: Record<string, string>;
  /** Element id → absolute URL, for links. */
  urls: Record<string, string>;
  /** Element id → what it is (role, name, context), when the capture was asked for them. */
  identities: Record<string, ElementIdentity>;
  /** The main frame's viewport when captured, for viewport ordering. */
  viewport: { top: number; height: number };
}

const INDENT = "  ";

/** Longer titles are cut: the line opens every chunk. */
const TITLE_CHARS = 200;

/** The outline's first line: the page's title, in the outline's own `role "name"` form. */
export function titleLine(title: string): string {
  const chars = Array.from(title);
  // By code points: a cut inside a surrogate pair would print half a character.
  const shown = chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS).join("")}…` : title;
  return shown ? `document ${JSON.stringify(shown)}` : "document";
}

/**
 * `title`: the page's (the main document's), whichever frame the capture starts in; `prefix`:
 * the selector of the frame the capture starts in (iframe elements above it); `mask`: hides
 * typed values in each line before it is quoted, and in the title before it is cut.
 */
export function assembleOutline(
  root: CapturedFrame,
  title: string,
  prefix = "",
  mask?: Mask,
): Outline {
  const outline: Outline = {
    text: "",
    titleLine: titleLine(mask ? mask(title) : title),
    lines: [],
    selectors: {},
    urls: {},
    identities: {},
    viewport: { top: root.lines.scrollY, height: root.lines.viewportHeight },
  };
  let nextId = 1;
  const walk = (
    frame: CapturedFrame,
    pathPrefix: string,
    depthOffset: number,
    topOffset: number,
  ) => {
    const l = frame.lines;
    for (let i = 0; i < l.text.length; i++) {
      const depth = depthOffset + l.depth[i]!;
      let body = finishLine(l.text[i]!, mask);
      if (l.interactive[i]) {
        const id = String(nextId++);
        outline.selectors[id] = `xpath=${pathPrefix}${l.path[i]}`;
        if (l.url[i]) outline.urls[id] = l.url[i]!;
        if (l.identity[i]) outline.identities[id] = l.identity[i]!;
        body = `[${id}] ${body}`;
      }
      const top = topOffset + l.top[i]!;
      outline.lines.push({ text: INDENT.repeat(depth) + body, top });
      const child = l.frame[i]! >= 0 ? frame.children.get(l.frame[i]!) : undefined;
      if (child) walk(child, pathPrefix + l.path[i], depth + 1, top);
    }
  };
  walk(root, prefix, 0, 0);
  outline.text = [outline.titleLine, ...outline.lines.map((line) => line.text)].join("\n");
  return outline;
}
