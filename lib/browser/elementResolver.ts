/**
 * Turns a parsed selector into element handles: frame hop by frame hop (Playwright follows
 * out-of-process iframes for us), then the target, crossing open shadow roots in page JS and
 * closed ones through CDP.
 */
import type { ElementHandle, Frame, JSHandle, Page } from "playwright-core";
import {
  ContentFrameNotFoundError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../errors.js";
import { closedShadowRoot } from "./closedShadowRoot.js";
import { inPage } from "./inPage.js";
import { type ParsedSelector, type SelectorPart, shadowPieces, xpathSteps } from "./selector.js";

export interface Resolution {
  frame: Frame;
  handles: ElementHandle[];
  /** Set when a frame hop matched nothing yet: the caller may wait and try again. */
  pendingHop?: string;
}

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

export async function resolveSelector(page: Page, parsed: ParsedSelector): Promise<Resolution> {
  let frame = page.mainFrame();
  for (const hop of parsed.frames) {
    const handles = await matchIn(page, frame, hop);
    if (handles.length === 0) return { frame, handles: [], pendingHop: describePart(hop) };
    if (handles.length > 1) {
      await disposeAll(handles);
      throw new AmbiguousSelectorError(describePart(hop), handles.length);
    }
    const host = handles[0]!;
    const child = await host.contentFrame();
    await host.dispose();
    if (!child) throw new ContentFrameNotFoundError(describePart(hop));
    frame = child;
  }
  return { frame, handles: await matchIn(page, frame, parsed.target) };
}

async function matchIn(page: Page, frame: Frame, part: SelectorPart): Promise<ElementHandle[]> {
  if (part.kind === "css") return frame.locator(part.css).elementHandles();
  const root = await frame.evaluateHandle(() => document);
  try {
    const plain = await evaluateXPath(root, part.xpath);
    const pieces = plain.length ? undefined : shadowPieces(part.xpath);
    if (!pieces) return plain;
    return await matchThroughShadowRoots(page, frame, root, pieces);
  } finally {
    await root.dispose();
  }
}

async function matchThroughShadowRoots(
  page: Page,
  frame: Frame,
  document: JSHandle,
  pieces: string[],
): Promise<ElementHandle[]> {
  let roots: JSHandle[] = [document];
  for (let i = 0; i < pieces.length; i++) {
    const matches: ElementHandle[] = [];
    for (const root of roots) matches.push(...(await evaluateXPath(root, pieces[i]!, i > 0)));
    if (roots[0] !== document) await disposeAll(roots);
    if (i === pieces.length - 1 || matches.length === 0) return matches;
    roots = [];
    for (const host of matches) {
      const root = await shadowRootOf(page, frame, host);
      if (root) roots.push(root);
    }
    const hostPath = pieces.slice(0, i + 1).join("//");
    await disposeAll(matches);
    if (roots.length === 0) throw new ServiceShadowRootMissingError(`xpath=${hostPath}`);
  }
  return [];
}

async function shadowRootOf(
  page: Page,
  frame: Frame,
  host: ElementHandle,
): Promise<JSHandle | undefined> {
  const open = await host.evaluateHandle((el) => (el as Element).shadowRoot);
  if (await open.evaluate((r) => r !== null)) return open;
  await open.dispose();
  return closedShadowRoot(page, frame, host);
}

interface FirstStep {
  name: string;
  index: number | null;
  predicate: string | null;
}

/** A shadow root cannot be an XPath context node: its first step is matched among its children. */
function firstStepOf(xpath: string): { first: FirstStep; rest: string } {
  const [head = "", ...tail] = xpathSteps(xpath);
  const match = /^([\w*:.-]+)((?:\[.*\])*)$/.exec(head);
  if (!match)
    throw new XPathResolutionError(xpath, `its step "${head}" cannot start inside a shadow root`);
  const predicates = match[2] ?? "";
  const index = /^\[(\d+)\]$/.exec(predicates);
  return {
    first: {
      name: match[1]!,
      index: index ? Number(index[1]) : null,
      predicate: predicates && !index ? predicates : null,
    },
    rest: tail.join("/"),
  };
}

/** Runs in the page: the elements `expression` matches from `node` (a document or shadow root). */
interface XPathRequest {
  expression: string;
  fromFragment: { first: FirstStep; rest: string } | null;
}
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
    if (first.index !== null) tops = tops[first.index - 1] ? [tops[first.index - 1]!] : [];
    else if (first.predicate)
      tops = tops.filter((c) => run(`self::node()${first.predicate}`, c).length > 0);
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
