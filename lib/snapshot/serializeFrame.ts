/**
 * Runs inside one frame's document and turns its rendered tree into outline lines. It walks the
 * tree as it is rendered: into open shadow roots, into closed ones handed in by CDP, slotted
 * light children in their slot's place. Measured on a 50k-element page: ~100 ms here, where
 * DOMSnapshot.captureSnapshot or DOM.getDocument take 0.5–1.3 s, mostly spent moving ~10 MB of
 * JSON over CDP. Only the lines cross back.
 *
 * It runs in Wayfarer's isolated world: the page's scripts can neither see what it keeps nor
 * change the built-ins it uses. Self-contained on purpose: it is sent to the page as source
 * text, with what it needs (roles and names, element paths, the DOM watcher) as arguments.
 */
import type { ElementIdentity } from "../api/operations.js";
import type { DomWatcher } from "../browser/domActivity.js";
import type { FrameLines, FrameStash, WalkRequest, WorldStore } from "./frameLines.js";
import type { PageSemantics } from "./pageSemantics.js";

export function serializeFrame(
  request: WalkRequest,
  sem: PageSemantics,
  dom: { watch: () => DomWatcher; quietFor: (actionAge: number) => number },
  elementPath: (el: Element) => string,
  identityOf: (el: Element, texts?: Map<Element, string>) => ElementIdentity,
): FrameLines {
  const quietFor = dom.quietFor(request.actionAge);
  const watcher = dom.watch();
  const g = globalThis as unknown as Record<string, FrameStash> & { __wayfarer?: WorldStore };
  g.__wayfarer ??= { roots: new WeakMap(), checked: new WeakMap() };
  const store = g.__wayfarer;
  // The texts identities read (an element's ancestors), for this walk only: a page's text changes.
  const texts = new Map<Element, string>();
  g[request.key] ??= { candidates: [], sizes: [], frames: [] };
  const stash = g[request.key]!;
  stash.candidates = [];
  stash.sizes = [];
  stash.frames = [];
  const { collapse, quote, step } = sem;
  // Elements nested deeper than this are not walked: a guard for the page's call stack.
  const MAX_DEPTH = 800;
  const DEEPER = "(more content nested too deep to show)";
  const SKIP = new Set("script style template noscript head meta link title".split(" "));
  // Their children are fallback content, shown only when the element itself cannot be.
  const NO_CHILDREN = new Set("canvas video audio meter progress object embed".split(" "));
  const ATTACHABLE = new Set(
    "article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span".split(
      " ",
    ),
  );

  type Entry =
    | { t: 0; s: string; el: Element }
    | { t: 1 } // block boundary
    | { t: 2 } // table-cell boundary
    | Line;
  interface Line {
    t: 3;
    el: Element;
    role: string;
    name: string;
    states: string;
    interactive: boolean;
    url: string;
    frame: number;
    children: Entry[];
  }
  interface Ctx {
    el: Element;
    /** The element's computed style (live: read only what a step needs, when it needs it). */
    cs: CSSStyleDeclaration | null;
    visible: boolean;
    cursor: string;
    inSection: boolean;
    /** Inside a label whose control is rendered: its words are that control's name. */
    inLabel: boolean;
    /** White space is preformatted (line breaks are lines); -1 until a text asks. */
    pre: -1 | 0 | 1;
    depth: number;
  }
  /** Boundaries carry nothing of their own: one object each serves every place. */
  const BLOCK: Entry = { t: 1 };
  const CELL: Entry = { t: 2 };

  const out: FrameLines = {
    text: [],
    depth: [],
    interactive: [],
    path: [],
    url: [],
    identity: [],
    top: [],
    frame: [],
    candidates: 0,
    elements: 0,
    quietFor,
    title: collapse(document.title),
    scopeLost: request.expectScope && !stash.scope,
    kept: true,
    viewportHeight: window.innerHeight,
    scrollY: window.scrollY,
    stamp: 0,
  };
  if (out.scopeLost) return out;

  const sizeOf = (el: Element) => {
    const r = el.getBoundingClientRect();
    return `${Math.round(r.width)}x${Math.round(r.height)}`;
  };

  /** Hosts whose closed shadow root CDP should look for: asked again when their size changes. */
  function maybeCandidate(el: Element, rendersContent: boolean): void {
    const tag = el.localName;
    const custom = tag.includes("-");
    if (!custom && !ATTACHABLE.has(tag)) return;
    // The registry is not visible from an isolated world; the :defined state is.
    const defined = custom && el.matches(":defined");
    // Otherwise: nothing of its own is shown, yet it takes room (a root we cannot see). A
    // closed root that shows the host's light children through a slot is not caught here.
    if (!defined && rendersContent) return;
    const size = sizeOf(el);
    if (!defined && size.startsWith("0x")) return;
    // A host asked about is not asked again while its size stays the same: a root attached
    // later (a component defined late) usually changes what it renders.
    if (store.checked.get(el) === size) return;
    // Marked as asked by the call that hands the hosts to CDP (closedRoots.ts).
    stash.candidates.push(el);
    stash.sizes.push(size);
  }

  /**
   * An element's selector, made only for the lines that carry one (elements with an id,
   * iframes): `/tag[n]` steps from the walk's start. Below a shadow root (`//`), the first step
   * also says "whose parent is not an element": read as plain XPath the selector then matches
   * nothing in the light DOM, so the resolver reads it with shadow boundaries (see
   * docs/guide/extract.md). A host the walk did not enter (the capture starts inside its
   * shadow root) is named by its own path.
   */
  const paths = new Map<Node, string>();
  const nths = new Map<Node, number>();
  const walkedHosts = new Set<Element>();
  function nthOf(el: Element): number {
    const known = nths.get(el);
    if (known !== undefined) return known;
    // Every child of the parent at once: a list of a thousand items costs one pass, not a
    // thousand.
    const counts = new Map<string, number>();
    const parent = el.parentNode as ParentNode | null;
    for (let c = parent?.firstElementChild ?? null; c; c = c.nextElementSibling) {
      const n = (counts.get(c.localName) ?? 0) + 1;
      counts.set(c.localName, n);
      nths.set(c, n);
    }
    return nths.get(el) ?? 1;
  }
  function pathOf(el: Element): string {
    const known = paths.get(el);
    if (known !== undefined) return known;
    const parent = el.parentNode;
    let path: string;
    if (parent instanceof ShadowRoot) {
      path = `${pathOf(parent.host)}//${step(el, nthOf(el))}[not(parent::*)]`;
    } else if (parent?.nodeType === 1) {
      const up = parent as Element;
      const host = !!(up.shadowRoot ?? store.roots.get(up));
      path = `${host && !walkedHosts.has(up) ? elementPath(up) : pathOf(up)}/${step(el, nthOf(el))}`;
    } else {
      path = elementPath(el);
    }
    paths.set(el, path);
    return path;
  }

  function visitNode(node: Node, acc: Entry[], ctx: Ctx) {
    if (node.nodeType === 3) {
      if (!ctx.visible || !node.nodeValue) return;
      if (ctx.pre < 0) {
        const ws = ctx.cs?.whiteSpace ?? "";
        ctx.pre = ws.startsWith("pre") || ws === "break-spaces" ? 1 : 0;
      }
      if (!ctx.pre) {
        acc.push({ t: 0, s: node.nodeValue, el: ctx.el });
        return;
      }
      // Preformatted text keeps its line breaks: each line of it is a line here.
      node.nodeValue.split("\n").forEach((line, i) => {
        if (i > 0) acc.push(BLOCK);
        acc.push({ t: 0, s: line, el: ctx.el });
      });
    } else if (node.nodeType === 1) {
      visitElement(node as Element, acc, ctx);
    }
  }

  function visitChildNodes(parent: Node, acc: Entry[], ctx: Ctx) {
    for (let node = parent.firstChild; node; node = node.nextSibling) visitNode(node, acc, ctx);
  }

  function visitSlot(slot: HTMLSlotElement, acc: Entry[], ctx: Ctx) {
    const assigned = slot.assignedNodes();
    if (!assigned.length) {
      visitChildNodes(slot, acc, ctx);
      return;
    }
    // Slotted nodes are the host's light children (their selectors start at the host's).
    for (const node of assigned) visitNode(node, acc, ctx);
  }

  function visitChildren(el: Element, cs: CSSStyleDeclaration, acc: Entry[], ctx: Ctx) {
    const tag = el.localName;
    const shadow = el.shadowRoot ?? store.roots.get(el) ?? null;
    if (shadow) {
      walkedHosts.add(el);
      watcher.observe(shadow);
      visitChildNodes(shadow, acc, ctx);
      return;
    }
    if (tag === "textarea" || tag === "select" || NO_CHILDREN.has(tag)) return;
    // Nothing below to show: its content-visibility need not be asked.
    if (!el.firstChild && tag !== "slot") return;
    if (cs.contentVisibility === "hidden") return;
    if (ctx.depth >= MAX_DEPTH) {
      if (el.firstElementChild) acc.push(BLOCK, { t: 0, s: DEEPER, el }, BLOCK);
      return;
    }
    if (tag === "details" && !(el as HTMLDetailsElement).open) {
      const summary = [...el.children].find((c) => c.localName === "summary");
      if (summary) visitElement(summary, acc, ctx);
    } else if (tag === "slot") {
      visitSlot(el as HTMLSlotElement, acc, ctx);
    } else {
      visitChildNodes(el, acc, ctx);
    }
  }

  /** A select's options (under their group's label, if any), chosen and disabled ones marked. */
  function optionLines(parent: Element): Line[] {
    const lines: Line[] = [];
    for (const child of parent.children) {
      const group = child.localName === "optgroup";
      if (!group && child.localName !== "option") continue;
      const option = child as HTMLOptionElement;
      const states = group
        ? ""
        : (option.selected ? " selected" : "") + (option.matches(":disabled") ? " disabled" : "");
      lines.push({
        t: 3,
        el: child,
        role: group ? "group" : "option",
        name: collapse(group ? (child.getAttribute("label") ?? "") : option.label || option.text),
        states,
        interactive: false,
        url: "",
        frame: -1,
        children: group ? optionLines(child) : [],
      });
    }
    return lines;
  }

  function contentText(entries: Entry[]): string {
    let s = "";
    for (const e of entries) s += e.t === 0 ? e.s : e.t === 3 ? ` ${e.name} ` : " ";
    return collapse(s);
  }

  function hasInteractive(line: Line): boolean {
    return line.children.some((c) => c.t === 3 && (c.interactive || hasInteractive(c)));
  }

  function visitElement(el: Element, acc: Entry[], ctx: Ctx): void {
    const tag = el.localName;
    if (SKIP.has(tag) || stash.ignore?.has(el)) return;
    if (tag === "br") {
      acc.push(BLOCK);
      return;
    }
    const cs = getComputedStyle(el);
    const display = cs.display;
    if (display === "none") return;
    const visible = cs.visibility === "visible";
    const inline = display.startsWith("inline") || display === "contents" || display === "ruby";
    const role = sem.role(el, ctx.inSection);
    const htmlEl = el as HTMLElement;
    const editable = htmlEl.isContentEditable && !el.parentElement?.isContentEditable;
    // The shorthand names both axes' values when they differ: one read instead of two.
    // An inline box (or none) has no scrolling of its own: its overflow is not asked.
    const overflows =
      display !== "inline" &&
      display !== "contents" &&
      /auto|scroll/.test(cs.overflow) &&
      tag !== "textarea" &&
      tag !== "select" &&
      (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
    const scrollable = visible && overflows;
    const interactive =
      visible &&
      (sem.WIDGETS.has(role) ||
        tag === "select" ||
        editable ||
        scrollable ||
        (htmlEl.tabIndex >= 0 && el.hasAttribute("tabindex")) ||
        el.hasAttribute("onclick") ||
        (cs.cursor === "pointer" && ctx.cursor !== "pointer"));
    const control = tag === "label" ? (el as HTMLLabelElement).control : null;
    const labelsRendered =
      !!control &&
      control.getClientRects().length > 0 &&
      (!stash.scope || stash.scope.contains(control));
    const childCtx: Ctx = {
      el,
      cs,
      visible,
      cursor: cs.cursor,
      inSection: ctx.inSection || sem.SECTIONING.has(tag),
      inLabel: ctx.inLabel || labelsRendered,
      pre: -1,
      depth: ctx.depth + 1,
    };

    if (tag === "iframe" || tag === "frame") {
      if (!visible) return;
      acc.push({
        t: 3,
        el,
        role: "iframe",
        name: sem.nameOf(el, () => "", false),
        states: "",
        interactive: false,
        url: "",
        frame: stash.frames.length,
        children: [],
      });
      stash.frames.push(el);
      return;
    }

    const children: Entry[] = [];
    visitChildren(el, cs, children, childCtx);
    if (!el.shadowRoot && !store.roots.has(el)) {
      maybeCandidate(
        el,
        children.some((c) => c.t === 3 || (c.t === 0 && c.s.trim() !== "")),
      );
    }

    if (!visible || (!interactive && !sem.STRUCTURE.has(role))) {
      // A wrapper, a role that adds nothing the words do not say (list, generic...), or an
      // element hidden itself whose children may show: the content takes its place. A label's
      // words go to the control it names.
      const edge = display === "table-cell" ? CELL : inline ? undefined : BLOCK;
      if (edge) acc.push(edge);
      // One by one: a container of 200,000 children spread as arguments overflows the stack.
      for (const entry of children)
        if (entry.t !== 0 || !labelsRendered || ctx.inLabel) acc.push(entry);
      if (edge) acc.push(edge);
      return;
    }
    // A clickable element without a role is named by its words, as a button would be.
    const fromContent =
      sem.NAME_FROM_CONTENT.has(role) ||
      tag === "button" ||
      tag === "summary" ||
      (!role && !scrollable && !editable);
    const name = sem.nameOf(el, () => contentText(children), fromContent);
    let kept: Entry[] = tag === "select" ? optionLines(el as HTMLSelectElement) : children;
    let states = sem.statesOf(el, role);
    if (editable) {
      const text = contentText(children);
      if (text) states = ` value=${quote(text)}${states}`;
      kept = children.filter((c) => c.t === 3);
    } else if (name && fromContent) {
      // Its words are its name already: keep only what can be acted on inside it.
      kept = children.filter((c) => c.t === 3 && (c.interactive || hasInteractive(c)));
    }
    if (!interactive && !name && !kept.some((c) => c.t === 0 || c.t === 3)) return;
    const lineRole = role || (scrollable ? "scrollable" : editable ? "textbox" : "clickable");
    acc.push({
      t: 3,
      el,
      role: lineRole,
      name,
      states: states + (scrollable && lineRole !== "scrollable" ? " scrollable" : ""),
      interactive,
      url: role === "link" ? sem.linkUrl(el) : "",
      frame: -1,
      children: kept,
    });
  }

  // Entries become lines: the words between two boundaries are one line.
  function emit(entries: Entry[], depth: number): void {
    let run = "";
    let runEl: Element | null = null;
    const flush = () => {
      let s = collapse(run);
      if (s.startsWith("| ")) s = s.slice(2);
      if (s.endsWith(" |")) s = s.slice(0, -2);
      // Page text that looks like an id line must not pass for one.
      if (s.startsWith("[")) s = s.replace(/^\[(\d+)\]/, "\\[$1]");
      if (s && runEl) push(s, depth, false, "", runEl, -1);
      run = "";
      runEl = null;
    };
    for (const e of entries) {
      if (e.t === 0) {
        run += e.s;
        runEl ??= e.el;
      } else if (e.t === 1) flush();
      else if (e.t === 2) {
        if (/\S/.test(run) && !run.endsWith(" | ")) run += " | ";
      } else {
        flush();
        const body = `${e.role}${e.name ? ` ${quote(e.name)}` : ""}${e.states}`;
        push(body, depth, e.interactive, e.url, e.el, e.frame);
        emit(e.children, depth + 1);
      }
    }
    flush();
  }

  let lastEl: Element | null = null;
  let lastTop = 0;
  function push(
    text: string,
    depth: number,
    interactive: boolean,
    url: string,
    el: Element,
    frame: number,
  ) {
    out.text.push(text);
    out.depth.push(depth);
    out.interactive.push(interactive ? 1 : 0);
    out.path.push(interactive || frame >= 0 ? pathOf(el) : "");
    out.url.push(url);
    out.identity.push(interactive && request.identities ? identityOf(el, texts) : null);
    // Boxless elements (a closed select's options) sit where the line before them does; lines
    // of one element (its line, then its own words) share its box.
    if (el !== lastEl) {
      const r = el.getBoundingClientRect();
      lastTop = r.width || r.height ? Math.round(r.top + window.scrollY) : (out.top.at(-1) ?? 0);
      lastEl = el;
    }
    out.top.push(lastTop);
    out.frame.push(frame);
  }

  const start = stash.scope ?? document.documentElement;
  const entries: Entry[] = [];
  if (start) {
    const ctx: Ctx = {
      el: start,
      cs: null,
      visible: true,
      cursor: "auto",
      inSection: false,
      inLabel: false,
      pre: -1,
      depth: 0,
    };
    paths.set(start, stash.scope ? elementPath(start) : `/${step(start, 1)}`);
    visitElement(start, entries, ctx);
  }
  emit(entries, 0);
  // Last: a change from here on is one the lines do not show.
  if (request.stamp) out.stamp = watcher.stamp();
  out.candidates = stash.candidates.length;
  if (out.candidates) out.elements = document.getElementsByTagName("*").length;
  // Nothing after this walk reads the stash (no host to ask CDP about, no frame to find, no
  // scope or ignored elements): it goes now, and the capture needs no clean-up call here.
  if (!out.candidates && !stash.frames.length && !stash.scope && !stash.ignore) {
    delete g[request.key];
    out.kept = false;
  }
  return out;
}
