/**
 * What an element is, in the terms the action cache checks before it replays an action: its
 * role, its accessible name, and the text of the nearest enclosing element that says more than
 * the element itself (the product card around one of four "Add to cart" buttons). Computed the
 * same way when an action is recorded and when it is replayed, so the two compare exactly.
 */
import type { ElementHandle, Page } from "playwright-core";
import type { ElementIdentity } from "../api/operations.js";
import { inPage } from "./inPage.js";

/** The identity of an element already resolved (one call into the page). */
export function identityOfElement(element: ElementHandle): Promise<ElementIdentity> {
  return element.evaluate(inPage(identityIn) as (element: Element) => ElementIdentity);
}

/** The identity of what has the focus (through open shadow roots); null for the page itself. */
export async function focusedIdentity(page: Page): Promise<ElementIdentity | null> {
  const handle = await page.evaluateHandle(() => {
    let focused = document.activeElement;
    while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
    return focused && focused !== document.body ? focused : null;
  });
  const element = handle.asElement();
  if (!element) {
    await handle.dispose();
    return null;
  }
  try {
    return await identityOfElement(element);
  } finally {
    await element.dispose();
  }
}

export function sameIdentity(a: ElementIdentity, b: ElementIdentity): boolean {
  return a.role === b.role && a.name === b.name && a.context === b.context;
}

/**
 * Runs in the page. Self-contained: the outline's walk (lib/snapshot) is sent it as source, to
 * record the identity of each element it gives an id.
 */
export function identityIn(
  element: Element,
  /** Texts already read in this walk: the ancestors of a thousand links are read once. */
  texts?: Map<Element, string>,
): ElementIdentity {
  // The first 5,000 characters are plenty for the `max` kept, and an outline records this for
  // every element with an id: a long list's text is not normalised once per link in it.
  const words = (text: string | null | undefined, max: number) =>
    (text ?? "").slice(0, 5_000).replace(/\s+/g, " ").trim().slice(0, max);
  // textContent's first 5,000 characters, not innerText (the same answer whatever the layout,
  // and no layout pass), read no further: textContent itself would build the whole text, and
  // the parent of each of 16,000 links is the list of them all (quadratic, ten seconds).
  const textStart = (el: Element) => {
    const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let text = "";
    for (let node = walker.nextNode(); node && text.length < 5_000; node = walker.nextNode()) {
      text += node.nodeValue ?? "";
    }
    return text;
  };
  const textOf = (el: Element) => {
    const known = texts?.get(el);
    if (known !== undefined) return known;
    const text = words(textStart(el), 300);
    texts?.set(el, text);
    return text;
  };
  const tag = element.tagName.toLowerCase();
  const type = (element.getAttribute("type") ?? "").toLowerCase();
  const implicit: Record<string, string> = {
    a: element.hasAttribute("href") ? "link" : "generic",
    button: "button",
    select: "combobox",
    textarea: "textbox",
    img: "img",
    summary: "button",
    h1: "heading",
    h2: "heading",
    h3: "heading",
    h4: "heading",
    h5: "heading",
    h6: "heading",
  };
  const inputRole = ["button", "submit", "reset"].includes(type)
    ? "button"
    : ["checkbox", "radio"].includes(type)
      ? type
      : "textbox";
  const role =
    element.getAttribute("role") ?? (tag === "input" ? inputRole : (implicit[tag] ?? tag));
  const labelled = element
    .getAttribute("aria-labelledby")
    ?.split(/\s+/)
    .map((id) => {
      const labelling = element.ownerDocument.getElementById(id);
      return labelling ? textStart(labelling) : "";
    })
    .join(" ");
  const labels = (element as HTMLInputElement).labels;
  const name = words(
    element.getAttribute("aria-label") ||
      labelled ||
      (labels?.length ? [...labels].map((l) => textStart(l)).join(" ") : "") ||
      element.getAttribute("alt") ||
      element.getAttribute("placeholder") ||
      (["button", "submit", "reset"].includes(type) ? (element as HTMLInputElement).value : "") ||
      textOf(element) ||
      element.getAttribute("title"),
    200,
  );
  // Up through parents and shadow hosts to the first element whose text says more.
  let context = "";
  for (let at: Node | null = element; at; ) {
    const parent: Node | null =
      at.parentNode instanceof ShadowRoot ? at.parentNode.host : at.parentNode;
    if (!(parent instanceof Element)) break;
    const text = textOf(parent);
    if (text && text !== name && text.length > name.length) {
      context = text;
      break;
    }
    at = parent;
  }
  return { role, name, context };
}
