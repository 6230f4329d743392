/**
 * Generated pages for the snapshot bench: a shop with news, built to a chosen element count so
 * that time and tokens can be compared across sizes. Seeded, so every run and every engine gets
 * byte-identical pages. The mix (nested wrappers, hidden nodes, a form, a table, shadow roots,
 * a same-origin frame) is there because each one is a separate branch in a snapshot engine.
 *
 * URLs are relative: the pages are served from one folder, next to frame.html and img/.
 */
import { seededRandom } from "../../test/support/random.js";

const ADJECTIVES = [
  "Classic",
  "Compact",
  "Deluxe",
  "Everyday",
  "Featherlight",
  "Heritage",
  "Modern",
  "Nordic",
  "Rugged",
  "Smart",
  "Vintage",
  "Waterproof",
];
const MATERIALS = ["Bamboo", "Canvas", "Ceramic", "Cotton", "Leather", "Linen", "Oak", "Steel"];
const NOUNS = [
  "Backpack",
  "Desk Lamp",
  "Espresso Cup",
  "Headphones",
  "Kettle",
  "Notebook",
  "Rain Jacket",
  "Sneakers",
  "Teapot",
  "Wall Clock",
  "Water Bottle",
  "Wool Scarf",
];
const CATEGORIES = ["Home", "Kitchen", "Outdoor", "Office", "Fashion", "Audio", "Travel", "Gifts"];
const WORDS = (
  "made from responsibly sourced materials with a soft finish that lasts for years and " +
  "ships in recyclable packaging designed in our studio tested for daily use easy to clean " +
  "comes with a two year warranty free returns within thirty days light enough to carry " +
  "everywhere and sturdy enough for the road ahead"
).split(" ");
const HEADLINES = [
  "Local makers open a new workshop downtown",
  "How we cut our shipping emissions in half",
  "Five ways to keep your kitchen tidy",
  "Spring collection arrives next week",
  "Customer stories: a year with the rain jacket",
  "Behind the scenes at the ceramics studio",
];

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const VOID = new Set(["img", "input", "meta", "link", "br", "hr"]);

/** Builds markup and counts the elements it emits, which is what the target size is about. */
class Builder {
  count = 0;

  el(tag: string, attrs: Record<string, string | number | boolean> = {}, ...children: string[]) {
    this.count++;
    let open = `<${tag}`;
    for (const [k, v] of Object.entries(attrs)) {
      if (v === false) continue;
      open += v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`;
    }
    open += ">";
    return VOID.has(tag) ? open : `${open}${children.join("")}</${tag}>`;
  }
}

const text = escapeHtml;

function sentence(rand: () => number, min: number, max: number): string {
  const n = min + Math.floor(rand() * (max - min + 1));
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  const s = words.join(" ");
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const STYLE = `
body{font-family:sans-serif;margin:0;color:#222}
.top{display:flex;justify-content:space-between;padding:8px 16px;background:#f4f4f4}
nav ul,.cols ul{list-style:none;margin:0;padding:0;display:flex;gap:12px;flex-wrap:wrap}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:16px}
.card__inner{border:1px solid #ddd;border-radius:6px;padding:8px}
.was{color:#888}.badge{background:#c00;color:#fff;padding:0 4px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.quick-view,.mobile-menu,.modal{display:none}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}
footer{background:#222;color:#eee;padding:16px}footer a{color:#9cf}
`;

/** Both components are open shadow roots; their content is not in document.getElementsByTagName. */
const COMPONENTS = `
customElements.define("cart-summary", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const n = this.getAttribute("items");
    this.attachShadow({ mode: "open" }).innerHTML =
      '<button type="button" aria-label="Cart, ' + n + ' items"><span class="count">' + n +
      '</span></button><div role="status">Subtotal ' + this.getAttribute("subtotal") + '</div>';
  }
});
customElements.define("promo-banner", class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: "open" }).innerHTML =
      '<style>section{padding:12px;background:#fffae6}</style><section><h2>' +
      this.getAttribute("headline") + '</h2><p>Members save an extra 10% this week.</p>' +
      '<a href="/deals">See all deals</a> <button type="button">Dismiss</button></section>';
  }
});
`;

function header(b: Builder, rand: () => number): string {
  const links = ["New in", ...CATEGORIES, "Sale", "Journal", "Stores"];
  const navItems = links.map((l) =>
    b.el("li", {}, b.el("a", { href: `/c/${l.toLowerCase().replace(/ /g, "-")}` }, text(l))),
  );
  const mobileItems = links.map((l) =>
    b.el("li", {}, b.el("a", { href: `/m/${l.toLowerCase().replace(/ /g, "-")}` }, text(l))),
  );
  return b.el(
    "header",
    {},
    b.el(
      "div",
      { class: "top" },
      b.el("a", { class: "sr-only", href: "#main" }, "Skip to content"),
      b.el("span", {}, "Free shipping on orders over $50"),
      b.el("a", { href: "/account" }, "Sign in"),
    ),
    b.el(
      "div",
      { class: "brand" },
      b.el(
        "a",
        { href: "/" },
        b.el("img", { src: "img/p0.svg", alt: "Wayfarer Goods", width: 120, height: 40 }),
      ),
      b.el("cart-summary", {
        items: 1 + Math.floor(rand() * 5),
        subtotal: `$${(20 + rand() * 200).toFixed(2)}`,
      }),
    ),
    b.el("nav", { "aria-label": "Main" }, b.el("ul", {}, ...navItems)),
    b.el(
      "div",
      { class: "mobile-menu", id: "mobile-menu" },
      b.el("ul", {}, ...mobileItems),
      b.el("button", { type: "button" }, "Close menu"),
    ),
  );
}

function searchForm(b: Builder): string {
  const options = ["All categories", ...CATEGORIES].map((c, i) =>
    b.el("option", { value: i === 0 ? "" : c.toLowerCase() }, text(c)),
  );
  return b.el(
    "form",
    { role: "search", action: "/search", class: "search" },
    b.el(
      "div",
      { class: "field" },
      b.el("label", { for: "q" }, "Search products"),
      b.el("input", {
        id: "q",
        name: "q",
        type: "search",
        placeholder: "What are you looking for?",
      }),
    ),
    b.el(
      "div",
      { class: "field" },
      b.el("label", { for: "cat" }, "Category"),
      b.el("select", { id: "cat", name: "cat" }, ...options),
    ),
    b.el(
      "div",
      { class: "field" },
      b.el("input", { id: "stock", name: "stock", type: "checkbox", checked: true }),
      b.el("label", { for: "stock" }, "In stock only"),
    ),
    b.el(
      "div",
      { class: "field" },
      b.el("label", { for: "max" }, "Max price"),
      b.el("input", { id: "max", name: "max", type: "number", min: 0, value: 100 }),
    ),
    b.el("button", { type: "submit" }, "Search"),
  );
}

function productCard(b: Builder, rand: () => number, id: number): string {
  const name = `${pick(rand, ADJECTIVES)} ${pick(rand, MATERIALS)} ${pick(rand, NOUNS)}`;
  const price = 5 + rand() * 195;
  const onSale = rand() < 0.25;
  const href = `/p/${id}`;
  const rating = (3 + rand() * 2).toFixed(1);
  const priceBlock = [b.el("span", { class: "price" }, `$${price.toFixed(2)}`)];
  if (onSale) {
    priceBlock.push(
      " ",
      b.el("s", { class: "was" }, `$${(price * 1.3).toFixed(2)}`),
      b.el("span", { class: "badge" }, "Sale"),
    );
  }
  const body = [
    b.el("h3", { class: "card__title" }, b.el("a", { href }, text(name))),
    b.el(
      "div",
      { class: "card__rating" },
      b.el("span", { "aria-hidden": "true" }, "★".repeat(Math.round(Number(rating)))),
      b.el("span", { class: "sr-only" }, `Rated ${rating} out of 5`),
    ),
    b.el("div", { class: "card__price" }, ...priceBlock),
    b.el("p", { class: "card__desc" }, text(sentence(rand, 10, 22))),
    b.el(
      "div",
      { class: "card__actions" },
      b.el("button", { type: "button", "data-sku": id }, "Add to cart"),
    ),
  ];
  // Real shops ship a quick-view panel per card and show it on hover.
  if (id % 7 === 0) {
    body.push(
      b.el(
        "div",
        { class: "quick-view" },
        b.el("p", {}, text(sentence(rand, 6, 12))),
        b.el("button", { type: "button" }, "Close"),
      ),
    );
  }
  return b.el(
    "article",
    { class: "card", "data-id": id },
    b.el(
      "div",
      { class: "card__inner" },
      b.el(
        "div",
        { class: "card__media" },
        b.el(
          "a",
          { href, tabindex: -1 },
          b.el("img", {
            src: `img/p${1 + (id % 20)}.svg`,
            alt: name,
            width: 200,
            height: 150,
            loading: "lazy",
          }),
        ),
      ),
      b.el("div", { class: "card__body" }, ...body),
    ),
  );
}

function news(b: Builder, rand: () => number, items: number): string {
  const list: string[] = [];
  for (let i = 0; i < items; i++) {
    const day = 1 + (i % 28);
    list.push(
      b.el(
        "li",
        {},
        b.el("a", { href: `/journal/${i}` }, text(pick(rand, HEADLINES))),
        " ",
        b.el("time", { datetime: `2024-05-${String(day).padStart(2, "0")}` }, `May ${day}`),
        b.el("p", {}, text(sentence(rand, 8, 16))),
      ),
    );
  }
  return b.el(
    "aside",
    { "aria-labelledby": "news-h" },
    b.el("h2", { id: "news-h" }, "From the journal"),
    b.el("ul", {}, ...list),
  );
}

function ordersTable(b: Builder, rand: () => number, rows: number): string {
  const heads = ["Order", "Date", "Items", "Total", "Status"].map((h) =>
    b.el("th", { scope: "col" }, h),
  );
  const statuses = ["Delivered", "Shipped", "Processing", "Returned"];
  const body: string[] = [];
  for (let i = 0; i < rows; i++) {
    body.push(
      b.el(
        "tr",
        {},
        b.el("td", {}, b.el("a", { href: `/orders/${10000 + i}` }, `#${10000 + i}`)),
        b.el("td", {}, `2024-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}`),
        b.el("td", {}, String(1 + Math.floor(rand() * 6))),
        b.el("td", {}, `$${(10 + rand() * 400).toFixed(2)}`),
        b.el("td", {}, pick(rand, statuses)),
      ),
    );
  }
  return b.el(
    "section",
    { "aria-labelledby": "orders-h" },
    b.el("h2", { id: "orders-h" }, "Recent orders"),
    b.el(
      "table",
      {},
      b.el("caption", {}, "Your orders from the last twelve months"),
      b.el("thead", {}, b.el("tr", {}, ...heads)),
      b.el("tbody", {}, ...body),
    ),
  );
}

function footer(b: Builder): string {
  const columns = ["Shop", "Help", "Company", "Legal"].map((title, c) =>
    b.el(
      "div",
      { class: "col" },
      b.el("h4", {}, title),
      b.el(
        "ul",
        {},
        ...Array.from({ length: 6 }, (_, i) =>
          b.el(
            "li",
            {},
            b.el("a", { href: `/${title.toLowerCase()}/${i}` }, `${title} link ${i + 1}`),
          ),
        ),
      ),
      c === 3 ? b.el("p", { hidden: true }, "Cookie settings are saved for a year.") : "",
    ),
  );
  return b.el(
    "footer",
    {},
    b.el("div", { class: "cols" }, ...columns),
    b.el("p", {}, b.el("small", {}, "© 2024 Wayfarer Goods. All rights reserved.")),
  );
}

/** A page of about `targetElements` elements (document.getElementsByTagName("*").length). */
export function shopPage(targetElements: number): string {
  const rand = seededRandom(targetElements);
  const b = new Builder();
  // Fixed parts first, so the product grid can fill what remains of the budget.
  const root = 7; // html, head, meta, meta, title, style, body
  b.count += root;
  const top = header(b, rand);
  const form = searchForm(b);
  const promo = b.el("promo-banner", { headline: "Summer sale: up to 40% off" });
  const aside = news(b, rand, Math.max(3, Math.round(targetElements / 200)));
  const table = ordersTable(b, rand, Math.max(5, Math.round(targetElements / 120)));
  const reviews = b.el(
    "section",
    { "aria-labelledby": "reviews-h" },
    b.el("h2", { id: "reviews-h" }, "What customers say"),
    b.el("iframe", { src: "frame.html", title: "Customer reviews", width: 600, height: 300 }),
  );
  const bottom = footer(b);
  const modal = b.el(
    "div",
    { class: "modal", role: "dialog", "aria-labelledby": "modal-h" },
    b.el("h2", { id: "modal-h" }, "Sign up for our newsletter"),
    b.el("p", {}, "Get 10% off your first order."),
    b.el("button", { type: "button" }, "No thanks"),
  );
  const script = b.el("script", {}, COMPONENTS);
  const h1 = b.el("h1", {}, "Goods for every day");
  const lead = b.el("p", { class: "lead" }, "Hand-picked products, shipped from our warehouse.");
  b.count += 1; // main

  const sections: string[] = [];
  let id = 1;
  let category = 0;
  let full = false;
  while (!full) {
    const sectionStart = b.count;
    b.count += 3; // section, h2, div.grid
    const cards: string[] = [];
    while (cards.length < 12) {
      const before = b.count;
      const card = productCard(b, rand, id);
      if (b.count > targetElements) {
        b.count = before;
        full = true;
        break;
      }
      cards.push(card);
      id++;
    }
    if (cards.length === 0) {
      b.count = sectionStart;
      break;
    }
    const name = CATEGORIES[category % CATEGORIES.length]!;
    const hId = `cat-${category}`;
    sections.push(
      `<section aria-labelledby="${hId}"><h2 id="${hId}">${name}${
        category >= CATEGORIES.length
          ? ` (page ${1 + Math.floor(category / CATEGORIES.length)})`
          : ""
      }</h2><div class="grid">${cards.join("")}</div></section>`,
    );
    category++;
  }

  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Wayfarer Goods: ${targetElements} element shop</title>`,
    `<style>${STYLE}</style></head><body>`,
    top,
    form,
    promo,
    `<main id="main">${h1}${lead}${sections.join("")}</main>`,
    aside,
    table,
    reviews,
    bottom,
    modal,
    script,
    "</body></html>",
  ].join("\n");
}

/** The same-origin frame every generated page embeds: a reviews widget with its own form. */
export function reviewsFrame(): string {
  const rand = seededRandom(7);
  const b = new Builder();
  const reviews = Array.from({ length: 8 }, (_, i) =>
    b.el(
      "li",
      {},
      b.el("strong", {}, `Customer ${i + 1}`),
      " ",
      b.el("span", {}, `${1 + Math.floor(rand() * 5)} of 5 stars`),
      b.el("p", {}, text(sentence(rand, 8, 18))),
    ),
  );
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>Reviews</title></head><body>',
    b.el("h2", {}, "Reviews"),
    b.el("ul", {}, ...reviews),
    b.el(
      "form",
      { action: "/reviews" },
      b.el("label", { for: "r-text" }, "Your review"),
      b.el("textarea", { id: "r-text", name: "text" }),
      b.el("label", { for: "r-stars" }, "Rating"),
      b.el(
        "select",
        { id: "r-stars", name: "stars" },
        ...[5, 4, 3, 2, 1].map((n) => b.el("option", { value: n }, `${n} stars`)),
      ),
      b.el("button", { type: "submit" }, "Post review"),
    ),
    "</body></html>",
  ].join("\n");
}

/** A small product picture, so images load from the bench server and nowhere else. */
export function productImage(n: number): string {
  const hue = (n * 47) % 360;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="150"><rect width="200" height="150" fill="hsl(${hue} 60% 80%)"/><circle cx="100" cy="75" r="40" fill="hsl(${hue} 50% 50%)"/></svg>`;
}
