/**
 * Runs in the page, beside the walk: what an element is (its ARIA role), what it is called (its
 * accessible name, simplified) and the states that matter. Self-contained on purpose: it is
 * sent to the page as source text, and the walk receives what it returns.
 */
export function pageSemantics() {
  const XHTML = "http://www.w3.org/1999/xhtml";
  const XLINK = "http://www.w3.org/1999/xlink";
  const SECRET_AUTOCOMPLETE = /password|one-time-code|cc-number|cc-csc/i;
  /** Names and ids that say "secret" keep a field masked after a "show password" toggle. */
  const SECRET_NAME = /pass(word|wd|code)?|\bpw\b|pwd|secret|otp|\bpin\b|cvc|cvv/i;
  /** Inputs seen as password fields once stay masked while the document lives. */
  const g = globalThis as unknown as { __wayfarerSecrets?: WeakSet<Element> };
  g.__wayfarerSecrets ??= new WeakSet();
  const secrets = g.__wayfarerSecrets;
  const BUTTON_INPUTS = ["button", "submit", "reset", "image", "file"];
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
  const SECTIONING = new Set(["article", "aside", "main", "nav", "section"]);

  const collapse = (s: string) => s.replace(/\s+/g, " ").trim();
  // Quoted in Node, after typed values are hidden (lib/snapshot/quoting.ts): a value is
  // hidden in the one form it has here, whatever escaping the quoting gives it later.
  const quote = (s: string) => `\u0001${s.replaceAll("\u0001", "").replaceAll("\u0002", "")}\u0002`;

  const htmlDocument = document.contentType === "text/html";
  const XPATH_NAME = /^[A-Za-z_][\w.-]*$/;

  /**
   * One XPath step. Names XPath cannot write plainly (SVG and other namespaces, any element of
   * an XML document such as XHTML, `o:p`, `x-a$b`) go through local-name().
   */
  function step(el: Element, n: number): string {
    const name = el.localName;
    const plain =
      htmlDocument && (el.namespaceURI === XHTML || !el.namespaceURI) && XPATH_NAME.test(name);
    return plain ? `${name}[${n}]` : `*[local-name()=${JSON.stringify(name)}][${n}]`;
  }

  function hasLink(el: Element): boolean {
    return el.hasAttribute("href") || el.hasAttributeNS(XLINK, "href");
  }

  /** The absolute URL a link goes to (SVG links too), or "". */
  function linkUrl(el: Element): string {
    if (el instanceof HTMLAnchorElement || el instanceof HTMLAreaElement) return el.href;
    const raw = el.getAttribute("href") ?? el.getAttributeNS(XLINK, "href");
    if (raw === null) return "";
    try {
      return new URL(raw, el.baseURI).href;
    } catch {
      return raw;
    }
  }

  function role(el: Element, inSection: boolean): string {
    const explicit = el.getAttribute("role")?.trim().split(/\s+/)[0];
    const r = explicit || implicitRole(el, inSection);
    return r === "presentation" || r === "none" ? "" : r;
  }

  function implicitRole(el: Element, inSection: boolean): string {
    const tag = el.localName;
    switch (tag) {
      case "a":
      case "area":
        return hasLink(el) ? "link" : "";
      case "button":
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
      case "input":
        return inputRole(el as HTMLInputElement);
      case "img":
        return el.getAttribute("alt") === "" ? "" : "img";
      case "nav":
        return "navigation";
      case "main":
      case "form":
      case "search":
      case "dialog":
      case "table":
        return tag;
      case "header":
        return inSection ? "" : "banner";
      case "footer":
        return inSection ? "" : "contentinfo";
      case "aside":
        return "complementary";
      case "section":
        return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "iframe":
      case "frame":
        return "iframe";
      default:
        return /^h[1-6]$/.test(tag) ? "heading" : "";
    }
  }

  function inputRole(input: HTMLInputElement): string {
    const type = input.type;
    if (type === "hidden") return "";
    if (BUTTON_INPUTS.includes(type)) return "button";
    if (type === "checkbox" || type === "radio") return type;
    if (type === "range") return "slider";
    if (type === "number") return "spinbutton";
    if (input.hasAttribute("list")) return "combobox";
    if (type === "search") return "searchbox";
    return ["date", "time", "datetime-local", "month", "week", "color"].includes(type)
      ? type
      : "textbox";
  }

  function isFormControl(el: Element): boolean {
    const tag = el.localName;
    return tag === "input" || tag === "select" || tag === "textarea" || tag === "button";
  }

  /** The rendered words under `root`, leaving out `skip`'s own (a control's value). */
  function renderedText(root: Element, skip?: Element): string {
    let s = "";
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const p = t.parentElement;
      if (!p || p === skip || p.localName === "option" || p.localName === "textarea") continue;
      if (!p.checkVisibility({ visibilityProperty: true })) continue;
      s += ` ${t.nodeValue}`;
    }
    return collapse(s);
  }

  /** aria-labelledby: referenced elements name even when hidden; their hidden parts do not. */
  function textOfIds(el: Element, ids: string): string {
    const root = el.getRootNode() as Document | ShadowRoot;
    const texts = ids.split(/\s+/).map((id) => {
      const ref = root.getElementById?.(id);
      return ref ? renderedText(ref) || collapse(ref.textContent ?? "") : "";
    });
    return collapse(texts.join(" "));
  }

  /** The words of the control's labels, without the control's own value. */
  function labelText(el: Element): string {
    const labels = (el as HTMLInputElement).labels;
    if (!labels?.length) return "";
    return collapse([...labels].map((label) => renderedText(label, el)).join(" "));
  }

  /** Words put in by CSS (`::before { content: "Close" }`), for an element with none of its own. */
  function generatedText(el: Element): string {
    const parts = ["::before", "::after"].map((pseudo) => {
      const content = getComputedStyle(el, pseudo).content;
      return /^".*"$/.test(content) ? (JSON.parse(content) as string) : "";
    });
    return collapse(parts.join(" "));
  }

  /** The accessible name, simplified; `content` gives the element's own words when asked. */
  function nameOf(el: Element, content: () => string, fromContent: boolean): string {
    const labelledBy = el.getAttribute("aria-labelledby");
    const byIds = labelledBy ? textOfIds(el, labelledBy) : "";
    if (byIds) return byIds;
    const aria = collapse(el.getAttribute("aria-label") ?? "");
    if (aria) return aria;
    const tag = el.localName;
    const attr = (name: string) => collapse(el.getAttribute(name) ?? "");
    if (tag === "input") {
      const input = el as HTMLInputElement;
      if (["button", "submit", "reset"].includes(input.type)) {
        return input.value || (input.type === "reset" ? "Reset" : "Submit");
      }
      if (input.type === "image") return attr("alt") || "Submit";
    }
    if (isFormControl(el) && tag !== "button") {
      const s = labelText(el) || attr("placeholder") || attr("title");
      if (s) return s;
    }
    if (tag === "img" || tag === "area") return attr("alt");
    if (tag === "iframe" || tag === "frame") return attr("title");
    if (fromContent) {
      const s = content() || (tag === "button" ? labelText(el) : "") || generatedText(el);
      if (s) return s;
    }
    if (el.namespaceURI !== XHTML) {
      const title = [...el.children].find((c) => c.localName === "title");
      if (title) return collapse(title.textContent ?? "");
    }
    return attr("title");
  }

  function valueState(el: Element, r: string): string {
    const tag = el.localName;
    if (tag === "input") {
      const input = el as HTMLInputElement;
      if (input.type === "checkbox" || input.type === "radio") {
        return input.indeterminate ? " mixed" : input.checked ? " checked" : "";
      }
      if (BUTTON_INPUTS.includes(input.type)) return "";
      if (input.type === "password") secrets.add(input);
      const secret =
        secrets.has(input) ||
        SECRET_AUTOCOMPLETE.test(input.getAttribute("autocomplete") ?? "") ||
        SECRET_NAME.test(`${input.name} ${input.id} ${labelText(input)}`);
      if (secret) return input.value ? " filled" : "";
      return input.value ? ` value=${quote(input.value)}` : "";
    }
    if (tag === "textarea") {
      const v = (el as HTMLTextAreaElement).value;
      return v ? ` value=${quote(v)}` : "";
    }
    if (tag === "select" && r === "combobox") {
      const picked = [...(el as HTMLSelectElement).selectedOptions].map((o) => collapse(o.text));
      return picked.length ? ` value=${quote(picked.join(", "))}` : "";
    }
    return "";
  }

  function statesOf(el: Element, r: string): string {
    let s = valueState(el, r);
    const aria = (name: string) => el.getAttribute(name);
    const checked = aria("aria-checked");
    if (checked === "true") s += " checked";
    else if (checked === "mixed") s += " mixed";
    if (aria("aria-pressed") === "true") s += " pressed";
    const isOption = el.localName === "option" && (el as HTMLOptionElement).selected;
    if (aria("aria-selected") === "true" || isOption) s += " selected";
    const expanded = aria("aria-expanded");
    const details = el.localName === "summary" ? el.parentElement : null;
    if (expanded === "true") s += " expanded";
    else if (expanded === "false") s += " collapsed";
    else if (details?.localName === "details") {
      s += (details as HTMLDetailsElement).open ? " expanded" : " collapsed";
    }
    // :disabled also covers a control inside a disabled fieldset.
    if ((isFormControl(el) && el.matches(":disabled")) || aria("aria-disabled") === "true") {
      s += " disabled";
    }
    if ((el as HTMLInputElement).required || aria("aria-required") === "true") s += " required";
    if ((el as HTMLInputElement).readOnly && el.localName !== "select") s += " readonly";
    const current = aria("aria-current");
    if (current && current !== "false") s += " current";
    return s;
  }

  return {
    WIDGETS,
    NAME_FROM_CONTENT,
    STRUCTURE,
    SECTIONING,
    collapse,
    quote,
    step,
    linkUrl,
    role,
    nameOf,
    statesOf,
  };
}

export type PageSemantics = ReturnType<typeof pageSemantics>;
