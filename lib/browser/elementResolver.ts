/**
 * Turns a parsed selector into element handles: frame hop by frame hop (Playwright follows
 * out-of-process iframes for us), then the target, crossing open shadow roots in page JS and
 * closed ones through CDP.
 */
import type { ElementHandle, Frame, JSHandle, Page } from "playwright-core";
import { ContentFrameNotFoundError, InvalidSelectorError, ServiceError } from "../errors.js";
import { closedShadowRoot } from "./closedShadowRoot.js";
import { inPage } from "./inPage.js";
import {
  type FirstStep,
  firstStepOf,
  type ParsedSelector,
  type SelectorPart,
  shadowPieces,
} from "./selector.js";

export interface Resolution {
  frame: Frame;
  handles: ElementHandle[];
  /** Why nothing matched yet (a frame not there, a host without a shadow root), for errors. */
  note?: string;
}

type Match = Omit<Resolution, "frame">;

export class AmbiguousSelectorError extends Error {
  constructor(
    readonly part: string,
    readonly count: number,
  ) {
    super(`${part} matches ${count} elements; a selector must match exactly one`);
  }
}

export function describePart(part: SelectorPart): string {
  return part.kind === "xpath" ? `xpath=${part.xpath}` : part.css;
}

/**
 * The elements a selector matches now. A selector the page's XPath or CSS engine cannot read
 * is an InvalidSelectorError: no waiting or retrying makes it match.
 */
export async function resolveSelector(page: Page, parsed: ParsedSelector): Promise<Resolution> {
  try {
    return await resolveParts(page, parsed);
  } catch (error) {
    throw invalidSelector(parsed.source, error) ?? error;
  }
}

/** The engines' words for a selector they cannot read, and ours for each. */
const UNREADABLE: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/is not a valid XPath expression/, () => "it is not a valid XPath expression"],
  [/(Unexpected token "[^"]*") while parsing css selector/, (m) => `it is not valid CSS (${m[1]})`],
  [/Unknown engine "([^"]*)"/, (m) => `"${m[1]}=" names no selector engine`],
  [/is not a valid selector/, () => "it is not a valid CSS selector"],
];

/** The InvalidSelectorError an engine's refusal means; undefined for any other failure. */
function invalidSelector(source: string, error: unknown): InvalidSelectorError | undefined {
  if (!(error instanceof Error) || error instanceof ServiceError) return undefined;
  for (const [pattern, reason] of UNREADABLE) {
    const m = error.message.match(pattern);
    if (m) return new InvalidSelectorError(source, reason(m), { cause: error });
  }
  return undefined;
}

async function resolveParts(page: Page, parsed: ParsedSelector): Promise<Resolution> {
  let frame = page.mainFrame();
  for (const hop of parsed.frames) {
    const { handles, note } = await matchIn(page, frame, hop);
    if (handles.length === 0) {
      return { frame, handles: [], note: note ?? `frame ${describePart(hop)} matches nothing` };
    }
    if (handles.length > 1) {
      await disposeAll(handles);
      throw new AmbiguousSelectorError(describePart(hop), handles.length);
    }
    const host = handles[0]!;
    try {
      const child = await host.contentFrame();
      if (!child) {
        // An iframe whose document is not attached yet (or is moving to another process) is
        // "not yet"; anything else is not a frame at all.
        const tag = await host.evaluate((el) => (el as Element).localName);
        if (tag === "iframe" || tag === "frame") {
          return { frame, handles: [], note: `frame ${describePart(hop)} has no document yet` };
        }
        throw new ContentFrameNotFoundError(describePart(hop));
      }
      frame = child;
    } finally {
      await host.dispose().catch(() => {});
    }
  }
  return { frame, ...(await matchIn(page, frame, parsed.target)) };
}

async function matchIn(page: Page, frame: Frame, part: SelectorPart): Promise<Match> {
  if (part.kind === "css") return { handles: await frame.locator(part.css).elementHandles() };
  // The usual case in one round trip: the XPath matches exactly one element of the document.
  const single = await frame.evaluateHandle(SINGLE_XPATH_MATCH, part.xpath);
  const element = single.asElement();
  if (element) return { handles: [element] };
  await single.dispose();
  const root = await frame.evaluateHandle(() => document);
  try {
    const plain = await evaluateXPath(root, part.xpath);
    const pieces = plain.length ? undefined : shadowPieces(part.xpath);
    if (!pieces) return { handles: plain };
    return await matchThroughShadowRoots(page, frame, root, pieces);
  } finally {
    await root.dispose();
  }
}

/** Each inner `//` read as a shadow-root boundary: evaluate piece by piece, root by root. */
async function matchThroughShadowRoots(
  page: Page,
  frame: Frame,
  document: JSHandle,
  pieces: string[],
): Promise<Match> {
  let roots: JSHandle[] = [];
  let matches: ElementHandle[] = [];
  try {
    for (let i = 0; i < pieces.length; i++) {
      matches = [];
      for (const root of i === 0 ? [document] : roots) {
        matches.push(...(await evaluateXPath(root, pieces[i]!, i > 0)));
      }
      await disposeAll(roots);
      roots = [];
      if (i === pieces.length - 1 || matches.length === 0) {
        const found = matches;
        matches = []; // handed to the caller, not ours to dispose
        return { handles: found };
      }
      for (const host of matches) {
        const root = await shadowRootOf(page, frame, host);
        if (root) roots.push(root);
      }
      await disposeAll(matches);
      matches = [];
      // Not an error yet: the host may be upgraded and given its root a moment later.
      if (roots.length === 0) {
        return {
          handles: [],
          note: `xpath=${pieces.slice(0, i + 1).join("//")} has no shadow root`,
        };
      }
    }
    return { handles: [] };
  } finally {
    await disposeAll([...roots, ...matches]);
  }
}

async function shadowRootOf(
  page: Page,
  frame: Frame,
  host: ElementHandle,
): Promise<JSHandle | undefined> {
  const open = await host.evaluateHandle((el) => (el as Element).shadowRoot);
  const isOpen = await open
    .evaluate((r) => r !== null)
    .catch(async (error: unknown) => {
      await open.dispose().catch(() => {});
      throw error;
    });
  if (isOpen) return open;
  await open.dispose();
  return closedShadowRoot(page, frame, host);
}

/** Runs in the page: the one element `expression` matches in the document, else null. */
const SINGLE_XPATH_MATCH = inPage((expression: string): Element | null => {
  const result = document.evaluate(
    expression,
    document,
    null,
    XPathResult.ORDERED_NODE_SNAPSHOT_TYPE,
    null,
  );
  const item = result.snapshotLength === 1 ? result.snapshotItem(0) : null;
  return item && item.nodeType === Node.ELEMENT_NODE ? (item as Element) : null;
});

interface XPathRequest {
  expression: string;
  fromFragment: { first: FirstStep; rest: string } | null;
}

/** Runs in the page: the elements `expression` matches from `node` (a document or shadow root). */
const XPATH_IN_PAGE = inPage(
  (node: unknown, { expression, fromFragment }: XPathRequest): Element[] => {
    const context = node as Node;
    const doc = context.ownerDocument ?? (context as Document);
    const run = (expr: string, from: Node): Element[] => {
      const result = doc.evaluate(expr, from, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      const out: Element[] = [];
      for (let i = 0; i < result.snapshotLength; i++) {
        const item = result.snapshotItem(i);
        if (item && item.nodeType === Node.ELEMENT_NODE) out.push(item as Element);
      }
      return out;
    };
    if (!fromFragment) return run(expression, context);
    const { first, rest } = fromFragment;
    const name = first.name.toLowerCase();
    let tops = [...(context as DocumentFragment).children].filter(
      (c) => name === "*" || c.localName.toLowerCase() === name,
    );
    // Predicates apply in order, positions counting among what the previous ones kept.
    for (const predicate of first.predicates) {
      const trimmed = predicate.trim();
      if (/^\d+$/.test(trimmed)) {
        const picked = tops[Number(trimmed) - 1];
        tops = picked ? [picked] : [];
      } else if (trimmed === "last()") tops = tops.slice(-1);
      else tops = tops.filter((c) => run(`self::node()[${predicate}]`, c).length > 0);
    }
    return rest ? tops.flatMap((t) => run(rest, t)) : tops;
  },
);

/** `root` is a document, or a shadow root when `inShadowRoot`. */
async function evaluateXPath(
  root: JSHandle,
  xpath: string,
  inShadowRoot = false,
): Promise<ElementHandle[]> {
  const list = await root.evaluateHandle(XPATH_IN_PAGE, {
    expression: xpath,
    fromFragment: inShadowRoot ? firstStepOf(xpath) : null,
  });
  try {
    const properties = await list.getProperties();
    const handles: ElementHandle[] = [];
    for (const handle of properties.values()) {
      const element = handle.asElement();
      if (element) handles.push(element);
      else await handle.dispose();
    }
    return handles;
  } finally {
    await list.dispose();
  }
}

export async function disposeAll(handles: JSHandle[]): Promise<void> {
  await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
}
