/**
 * Runs in the page: the selector of an element within its frame's document, in the form the
 * outline uses (`/tag[n]` steps, `//` where a shadow root is crossed). Self-contained: it is
 * sent to the page as source text.
 */
export function elementPath(el: Element): string {
  const step = (e: Element, n: number) =>
    (e.namespaceURI === "http://www.w3.org/1999/xhtml" || !e.namespaceURI) &&
    !e.localName.includes(":")
      ? `${e.localName}[${n}]`
      : `*[local-name()='${e.localName}'][${n}]`;
  let path = "";
  let node: Element | null = el;
  while (node) {
    const parent: Node | null = node.parentNode;
    let n = 0;
    for (let c = parent?.firstChild ?? null; c; c = c.nextSibling) {
      if (c.nodeType === 1 && (c as Element).localName === node.localName) n++;
      if (c === node) break;
    }
    if (parent?.nodeType === 11) {
      // As in the outline's selectors: the plain XPath reading must match nothing here.
      path = `//${step(node, n)}[not(parent::*)]${path}`;
      node = (parent as ShadowRoot).host;
    } else {
      path = `/${step(node, Math.max(n, 1))}${path}`;
      node = parent?.nodeType === 1 ? (parent as Element) : null;
    }
  }
  return path;
}
