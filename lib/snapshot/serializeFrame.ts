/**
 * Runs inside one frame's document and turns its rendered tree into outline lines. It walks the
 * tree as it is rendered: into open shadow roots, into closed ones handed in by CDP, slotted
 * light children in their slot's place. Measured on a 50k-element page: ~100 ms here, where
 * DOMSnapshot.captureSnapshot or DOM.getDocument take 0.5–1.3 s, mostly spent moving ~10 MB of
 * JSON over CDP. Only the lines cross back.
 *
 * It runs in Wayfarer's isolated world: the page's scripts can neither see what it keeps nor
 * change the built-ins it uses. Self-contained on purpose: it is sent to the page as source text.
 */

/** Kept in the isolated world for the life of the document: what CDP told us once. */
export interface WorldStore {
  /** Host → its closed shadow root. */
  roots: WeakMap<Element, ShadowRoot>;
  /** Hosts CDP has looked at already. */
  checked: WeakSet<Element>;
}

/** One capture's state in a frame's isolated world, under the capture's key. */
export interface FrameStash {
  /** Hosts that may carry a closed shadow root (filled by the walk). */
  candidates: Element[];
  /** The iframe elements of the frame's lines, in line order (filled by the walk). */
  frames: Element[];
  /** Only this element's subtree is outlined. */
  scope?: Element;
  /** The scope element's selector within the frame. */
  scopePath?: string;
  /** These elements and their subtrees are left out. */
  ignore?: Set<Element>;
}

export interface FrameLines {
  /** Line text without indentation or id, e.g. `link "Home"`. */
  text: string[];
  depth: number[];
  /** 1 for an element that gets an id. */
  interactive: number[];
  /** Selector of the element within this frame (XPath, `//` at shadow boundaries); "" if none. */
  path: string[];
  /** Absolute URL of a link; "" if none. */
  url: string[];
  /** Distance from the top of the document, CSS px, for viewport ordering. */
  top: number[];
  /** Index into `stash.frames` for an iframe line; -1 otherwise. */
  frame: number[];
  /** Whether the walk saw hosts worth asking CDP about (closed shadow roots). */
  candidates: number;
  /** Milliseconds since the document's elements last changed (0: not watched until now). */
  quietFor: number;
  viewportHeight: number;
  scrollY: number;
}

export function serializeFrame(key: string, watchDom: () => { quietFor(): number }): FrameLines {
  const watched = "__wayfarerDom" in globalThis;
  const watcher = watchDom();
  const quietFor = watched ? watcher.quietFor() : 0;
  const g = globalThis as unknown as Record<string, FrameStash> & { __wayfarer?: WorldStore };
  g.__wayfarer ??= { roots: new WeakMap(), checked: new WeakSet() };
  const store = g.__wayfarer;
  g[key] ??= { candidates: [], frames: [] };
  const stash = g[key];
  stash.candidates = [];
  stash.frames = [];
  const closedRoots = store.roots;
  const ignore = stash.ignore;

  const SKIP = new Set([
    "script",
    "style",
    "template",
    "noscript",
    "head",
    "meta",
    "link",
    "title",
  ]);
  const WIDGETS = new Set([
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "textbox",
    "searchbox",
    "combobox",
    "slider",
    "spinbutton",
    "treeitem",
  ]);
  const NAME_FROM_CONTENT = new Set([
    "button",
    "link",
    "heading",
    "option",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "treeitem",
    "checkbox",
    "radio",
    "switch",
    "cell",
    "columnheader",
    "rowheader",
    "tooltip",
  ]);
  const STRUCTURE = new Set([
    "heading",
    "img",
    "navigation",
    "main",
    "banner",
    "contentinfo",
    "complementary",
    "form",
    "search",
    "dialog",
    "alertdialog",
    "alert",
    "region",
    "table",
    "iframe",
    "listbox",
    "menu",
    "tablist",
  ]);
  const ATTACHABLE = new Set([
    "article",
    "aside",
    "blockquote",
    "body",
    "div",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "main",
    "nav",
    "p",
    "section",
    "span",
  ]);
  const SECRET_AUTOCOMPLETE = /password|one-time-code|cc-number|cc-csc/i;
  const XHTML = "http://www.w3.org/1999/xhtml";

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
    path: string;
    url: string;
    frame: number;
    children: Entry[];
  }

  const out: FrameLines = {
    text: [],
    depth: [],
    interactive: [],
    path: [],
    url: [],
    top: [],
    frame: [],
    candidates: 0,
    quietFor,
    viewportHeight: window.innerHeight,
    scrollY: window.scrollY,
  };

  const collapse = (s: string) => s.replace(/\s+/g, " ").trim();
  const quote = (s: string) => JSON.stringify(s);

  function step(el: Element, n: number): string {
    return el.namespaceURI === XHTML || !el.namespaceURI
      ? `${el.localName}[${n}]`
      : `*[local-name()='${el.localName}'][${n}]`;
  }

  function explicitRole(el: Element): string | null {
    const role = el.getAttribute("role");
    return role ? (role.trim().split(/\s+/)[0] ?? null) : null;
  }

  function implicitRole(el: Element, inSection: boolean): string {
    switch (el.localName) {
      case "a":
      case "area":
        return el.hasAttribute("href") ? "link" : "";
      case "button":
        return "button";
      case "summary":
        return "button";
      case "select": {
        const s = el as HTMLSelectElement;
        return s.multiple || s.size > 1 ? "listbox" : "combobox";
      }
      case "textarea":
        return "textbox";
      case "option":
        return "option";
      case "input": {
        const type = (el as HTMLInputElement).type;
        if (type === "hidden") return "";
        if (["button", "submit", "reset", "image", "file"].includes(type)) return "button";
        if (type === "checkbox" || type === "radio") return type;
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
        if (el.hasAttribute("list")) return "combobox";
        return ["date", "time", "datetime-local", "month", "week", "color"].includes(type)
          ? type
          : "textbox";
      }
      case "img":
        return el.getAttribute("alt") === "" ? "" : "img";
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return "heading";
      case "nav":
        return "navigation";
      case "main":
        return "main";
      case "header":
        return inSection ? "" : "banner";
      case "footer":
        return inSection ? "" : "contentinfo";
      case "aside":
        return "complementary";
      case "form":
        return "form";
      case "search":
        return "search";
      case "dialog":
        return "dialog";
      case "table":
        return "table";
      case "section":
        return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "iframe":
      case "frame":
        return "iframe";
      default:
        return "";
    }
  }

  function isFormControl(el: Element): boolean {
    return (
      el.localName === "input" ||
      el.localName === "select" ||
      el.localName === "textarea" ||
      el.localName === "button"
    );
  }

  function textOfIds(el: Element, ids: string): string {
    const root = el.getRootNode() as Document | ShadowRoot;
    return collapse(
      ids
        .split(/\s+/)
        .map((id) => root.getElementById?.(id)?.textContent ?? "")
        .join(" "),
    );
  }

  function labelText(el: Element): string {
    const labels = (el as HTMLInputElement).labels;
    if (!labels?.length) return "";
    const parts: string[] = [];
    for (const label of labels) {
      // The label's own words, not the value of the control it wraps.
      let s = "";
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        const p = t.parentElement;
        if (p && (p === el || p.localName === "option" || p.localName === "textarea")) continue;
        s += t.nodeValue;
      }
      parts.push(s);
    }
    return collapse(parts.join(" "));
  }

  function contentText(entries: Entry[]): string {
    let s = "";
    for (const e of entries) {
      if (e.t === 0) s += e.s;
      else if (e.t === 3) s += ` ${e.name} `;
      else s += " ";
    }
    return collapse(s);
  }

  function nameOf(el: Element, children: Entry[], fromContent: boolean): string {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const s = textOfIds(el, labelledBy);
      if (s) return s;
    }
    const aria = collapse(el.getAttribute("aria-label") ?? "");
    if (aria) return aria;
    const tag = el.localName;
    if (tag === "input") {
      const input = el as HTMLInputElement;
      if (["button", "submit", "reset"].includes(input.type)) {
        return input.value || (input.type === "reset" ? "Reset" : "Submit");
      }
      if (input.type === "image") return collapse(input.alt || "Submit");
    }
    if (isFormControl(el) && tag !== "button") {
      const s =
        labelText(el) ||
        collapse(el.getAttribute("placeholder") ?? "") ||
        collapse(el.getAttribute("title") ?? "");
      if (s) return s;
    }
    if (tag === "img" || tag === "area") return collapse(el.getAttribute("alt") ?? "");
    if (tag === "iframe" || tag === "frame") return collapse(el.getAttribute("title") ?? "");
    if (fromContent) {
      const s = contentText(children);
      if (s) return s;
      if (tag === "button") {
        const s2 = labelText(el);
        if (s2) return s2;
      }
    }
    return collapse(el.getAttribute("title") ?? "");
  }

  function valueState(el: Element, role: string): string {
    const tag = el.localName;
    const secret = (v: string) => (v ? " filled" : "");
    if (tag === "input") {
      const input = el as HTMLInputElement;
      if (input.type === "checkbox" || input.type === "radio") {
        return (input.indeterminate ? " mixed" : input.checked ? " checked" : "") as string;
      }
      if (["button", "submit", "reset", "image", "file"].includes(input.type)) return "";
      if (
        input.type === "password" ||
        SECRET_AUTOCOMPLETE.test(input.getAttribute("autocomplete") ?? "")
      ) {
        return secret(input.value);
      }
      return input.value ? ` value=${quote(input.value)}` : "";
    }
    if (tag === "textarea") {
      const v = (el as HTMLTextAreaElement).value;
      return v ? ` value=${quote(v)}` : "";
    }
    if (tag === "select") {
      const picked = [...(el as HTMLSelectElement).selectedOptions].map((o) => collapse(o.text));
      return picked.length && role === "combobox" ? ` value=${quote(picked.join(", "))}` : "";
    }
    if ((el as HTMLElement).isContentEditable && role === "textbox") return "";
    return "";
  }

  function statesOf(el: Element, role: string): string {
    let s = valueState(el, role);
    const aria = (name: string) => el.getAttribute(name);
    const checked = aria("aria-checked");
    if (checked === "true") s += " checked";
    else if (checked === "mixed") s += " mixed";
    if (aria("aria-pressed") === "true") s += " pressed";
    if (
      aria("aria-selected") === "true" ||
      (el.localName === "option" && (el as HTMLOptionElement).selected)
    ) {
      s += " selected";
    }
    const expanded = aria("aria-expanded");
    if (expanded === "true") s += " expanded";
    else if (expanded === "false") s += " collapsed";
    else if (el.localName === "summary" && el.parentElement?.localName === "details") {
      s += (el.parentElement as HTMLDetailsElement).open ? " expanded" : " collapsed";
    }
    if (
      (isFormControl(el) && (el as HTMLInputElement).disabled) ||
      aria("aria-disabled") === "true"
    ) {
      s += " disabled";
    }
    if ((el as HTMLInputElement).required || aria("aria-required") === "true") s += " required";
    if ((el as HTMLInputElement).readOnly && el.localName !== "select") s += " readonly";
    const current = aria("aria-current");
    if (current && current !== "false") s += " current";
    return s;
  }

  function maybeCandidate(el: Element): void {
    const tag = el.localName;
    if (store.checked.has(el)) return;
    const custom = tag.includes("-");
    if (!custom && !ATTACHABLE.has(tag)) return;
    // The registry is not visible from an isolated world; the :defined state is.
    if (custom && el.matches(":defined")) {
      stash.candidates.push(el);
      return;
    }
    // Nothing of its own to render, yet it takes room: something in a root we cannot see.
    if (el.firstElementChild || collapse(el.textContent ?? "")) return;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) stash.candidates.push(el);
  }

  /**
   * Visits the children of `parent` (an element, a shadow root or a slot's assigned nodes),
   * appending entries. `paths` gives the selector of each element child.
   */
  function visitNodes(nodes: Iterable<Node>, paths: Map<Node, string>, acc: Entry[], ctx: Ctx) {
    for (const node of nodes) {
      if (node.nodeType === 3) {
        if (ctx.visible && node.nodeValue) acc.push({ t: 0, s: node.nodeValue, el: ctx.el });
        continue;
      }
      if (node.nodeType !== 1) continue;
      visitElement(node as Element, paths.get(node) ?? "", acc, ctx);
    }
  }

  interface Ctx {
    el: Element;
    visible: boolean;
    cursor: string;
    inSection: boolean;
    /** The nearest label wrapping a control: its words are the control's name. */
    inLabel: boolean;
  }

  /**
   * Selectors of a node's element children. Below a shadow root (`//`), the first step also says
   * "whose parent is not an element": read as plain XPath the selector then matches nothing in
   * the light DOM, so the resolver reads it with shadow boundaries (see the README).
   */
  function childPaths(parent: ParentNode, prefix: string, sep: string): Map<Node, string> {
    const paths = new Map<Node, string>();
    const counts = new Map<string, number>();
    const mark = sep === "//" ? "[not(parent::*)]" : "";
    for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
      const n = (counts.get(c.localName) ?? 0) + 1;
      counts.set(c.localName, n);
      paths.set(c, `${prefix}${sep}${step(c, n)}${mark}`);
    }
    return paths;
  }

  function visitElement(el: Element, path: string, acc: Entry[], ctx: Ctx): void {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    if (ignore?.has(el)) return;
    if (tag === "br") {
      acc.push({ t: 1 });
      return;
    }
    const cs = getComputedStyle(el);
    const display = cs.display;
    if (display === "none") return;
    const visible = cs.visibility === "visible";
    const inline = display.startsWith("inline") || display === "contents" || display === "ruby";
    const cell = display === "table-cell";
    const cursor = cs.cursor;

    let role = explicitRole(el) ?? implicitRole(el, ctx.inSection);
    if (role === "presentation" || role === "none") role = "";
    const htmlEl = el as HTMLElement;
    const editable = htmlEl.isContentEditable && !el.parentElement?.isContentEditable;
    if (editable && !role) role = "textbox";
    let interactive =
      visible &&
      (WIDGETS.has(role) ||
        (tag === "a" && el.hasAttribute("href")) ||
        tag === "select" ||
        editable ||
        (htmlEl.tabIndex >= 0 && el.hasAttribute("tabindex")) ||
        el.hasAttribute("onclick") ||
        (cursor === "pointer" && ctx.cursor !== "pointer"));
    let scrollable = false;
    const oy = cs.overflowY;
    const ox = cs.overflowX;
    if (
      (oy === "auto" || oy === "scroll" || ox === "auto" || ox === "scroll") &&
      tag !== "textarea" &&
      tag !== "select" &&
      (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)
    ) {
      scrollable = true;
      interactive = visible;
    }

    const childCtx: Ctx = {
      el,
      visible,
      cursor,
      inSection: ctx.inSection || ["article", "aside", "main", "nav", "section"].includes(tag),
      inLabel: ctx.inLabel || (tag === "label" && !!(el as HTMLLabelElement).control),
    };
    const children: Entry[] = [];

    if (tag === "iframe" || tag === "frame") {
      if (!visible) return;
      const line: Line = {
        t: 3,
        el,
        role: "iframe",
        name: nameOf(el, children, false),
        states: "",
        interactive: false,
        path,
        url: "",
        frame: stash.frames.length,
        children,
      };
      stash.frames.push(el);
      acc.push(line);
      return;
    }

    const shadow = el.shadowRoot ?? closedRoots.get(el) ?? null;
    if (shadow) {
      // Slotted light children take their selectors from the host's path.
      hostPathOf.set(el, path);
      visitShadow(shadow, path, children, childCtx);
    } else {
      maybeCandidate(el);
      if (cs.contentVisibility !== "hidden") {
        if (tag === "details" && !(el as HTMLDetailsElement).open) {
          const summary = [...el.children].find((c) => c.localName === "summary");
          if (summary)
            visitElement(summary, childPaths(el, path, "/").get(summary)!, children, childCtx);
        } else if (tag === "textarea") {
          // Its words are its value, shown as such.
        } else if (tag === "slot") {
          visitSlot(el as HTMLSlotElement, path, children, childCtx);
        } else if (el.firstChild) {
          visitNodes(el.childNodes, childPaths(el, path, "/"), children, childCtx);
        }
      }
    }

    if (tag === "select") {
      children.length = 0;
      for (const option of (el as HTMLSelectElement).options) {
        const name = collapse(option.label || option.text);
        children.push({
          t: 3,
          el: option,
          role: "option",
          name,
          states: option.selected ? " selected" : "",
          interactive: false,
          path: "",
          url: "",
          frame: -1,
          children: [],
        });
      }
    }

    const structural = STRUCTURE.has(role);
    if (!role && !interactive) {
      // A wrapper: its content takes its place. A label's words go to the control it names.
      const kept = childCtx.inLabel && !ctx.inLabel ? children.filter((c) => c.t !== 0) : children;
      if (cell) acc.push({ t: 2 }, ...kept, { t: 2 });
      else if (inline) acc.push(...kept);
      else acc.push({ t: 1 }, ...kept, { t: 1 });
      return;
    }
    if (!structural && !interactive) {
      // A role that adds nothing the words do not say (list, listitem, generic...).
      if (inline) acc.push(...children);
      else acc.push({ t: 1 }, ...children, { t: 1 });
      return;
    }
    // A clickable element without a role is named by its words, as a button would be.
    const fromContent =
      NAME_FROM_CONTENT.has(role) ||
      tag === "button" ||
      tag === "summary" ||
      (!role && !scrollable);
    const name = nameOf(el, children, fromContent);
    let kept = children;
    let states = statesOf(el, role);
    if (editable) {
      const text = contentText(children);
      if (text) states = ` value=${quote(text)}${states}`;
      kept = children.filter((c) => c.t === 3);
    } else if (name && fromContent) {
      // Its words are its name already: keep only what can be acted on inside it.
      kept = children.filter((c) => c.t === 3 && (c.interactive || hasInteractive(c)));
    }
    if (!interactive && !name && !kept.some((c) => c.t !== 1 && c.t !== 2)) return;
    let lineRole = role || (scrollable ? "scrollable" : editable ? "textbox" : "clickable");
    if (scrollable && role) lineRole = role;
    acc.push({
      t: 3,
      el,
      role: lineRole,
      name,
      states: states + (scrollable && lineRole !== "scrollable" ? " scrollable" : ""),
      interactive,
      path,
      url: tag === "a" || tag === "area" ? ((el as HTMLAnchorElement).href ?? "") : "",
      frame: -1,
      children: kept,
    });
  }

  function hasInteractive(line: Line): boolean {
    return line.children.some((c) => c.t === 3 && (c.interactive || hasInteractive(c)));
  }

  function visitShadow(root: ShadowRoot, hostPath: string, acc: Entry[], ctx: Ctx) {
    visitNodes(root.childNodes, childPaths(root, hostPath, "//"), acc, ctx);
  }

  function visitSlot(slot: HTMLSlotElement, slotPath: string, acc: Entry[], ctx: Ctx) {
    const assigned = slot.assignedNodes();
    if (!assigned.length) {
      visitNodes(slot.childNodes, childPaths(slot, slotPath, "/"), acc, ctx);
      return;
    }
    // Slotted nodes are the host's light children: their selectors start at the host.
    const host = (slot.getRootNode() as ShadowRoot).host;
    const hostPaths = lightPaths.get(host) ?? childPaths(host, hostPathOf.get(host) ?? "", "/");
    lightPaths.set(host, hostPaths);
    visitNodes(assigned, hostPaths, acc, ctx);
  }

  const lightPaths = new Map<Element, Map<Node, string>>();
  const hostPathOf = new Map<Element, string>();

  // Flatten entries into lines: words between boundaries become one line each.
  function emit(entries: Entry[], depth: number): void {
    let run = "";
    let runEl: Element | null = null;
    const flush = () => {
      const s = collapse(run);
      if (s && runEl) push(s, depth, false, "", "", runEl, -1);
      run = "";
      runEl = null;
    };
    for (const e of entries) {
      if (e.t === 0) {
        run += e.s;
        runEl ??= e.el;
      } else if (e.t === 1) flush();
      else if (e.t === 2) {
        if (collapse(run) && !run.endsWith(" | ")) run += " | ";
      } else {
        flush();
        const body = `${e.role}${e.name ? ` ${quote(e.name)}` : ""}${e.states}`;
        push(body, depth, e.interactive, e.path, e.url, e.el, e.frame);
        emit(e.children, depth + 1);
      }
    }
    flush();
  }

  function push(
    text: string,
    depth: number,
    interactive: boolean,
    path: string,
    url: string,
    el: Element,
    frame: number,
  ) {
    const trimmed = text.endsWith(" |") ? text.slice(0, -2) : text;
    out.text.push(trimmed.startsWith("| ") ? trimmed.slice(2) : trimmed);
    out.depth.push(depth);
    out.interactive.push(interactive ? 1 : 0);
    out.path.push(interactive || frame >= 0 ? path : "");
    out.url.push(url);
    // Boxless elements (a closed select's options) sit where the line before them does.
    const r = el.getBoundingClientRect();
    const top = r.width || r.height ? Math.round(r.top + window.scrollY) : (out.top.at(-1) ?? 0);
    out.top.push(top);
    out.frame.push(frame);
  }

  const start = stash.scope ?? document.documentElement;
  const entries: Entry[] = [];
  if (start) {
    const ctx: Ctx = {
      el: start,
      visible: true,
      cursor: "auto",
      inSection: false,
      inLabel: false,
    };
    visitElement(start, stash.scope ? (stash.scopePath ?? "") : `/${step(start, 1)}`, entries, ctx);
  }
  emit(entries, 0);
  out.candidates = stash.candidates.length;
  return out;
}
