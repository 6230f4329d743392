/**
 * Text recall of an outline: the share of a page's sentences (from its innerText, 5 words or
 * more) that the outline holds. Both sides are reduced to lower-case words, so that line
 * breaks, quotes and the outline's own markup ([ids], roles) do not decide; each engine's
 * markup is taken off by its own reader.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const words = (text: string) => (text.toLowerCase().match(WORD) ?? []).join(" ");

/** The page's sentences of at least 5 words, as word strings. */
export function sentencesOf(innerText: string): string[] {
  const out = new Set<string>();
  for (const line of innerText.split(/\n+/)) {
    for (const sentence of line.split(/(?<=[.!?。！？])\s+/)) {
      const w = words(sentence);
      if (w.split(" ").length >= 5) out.add(w);
    }
  }
  return [...out];
}

/** Our outline as running text: `[id] role "name" states` lines give their name. */
export function wayfarerText(pageText: string): string {
  return pageText
    .split("\n")
    .map((line) => {
      const body = line.trim().replace(/^\[\d+\] /, "");
      const named = /^[a-z]+ ("(?:[^"\\]|\\.)*")/.exec(body);
      if (!named) return body.replace(/^\\\[/, "[");
      try {
        return JSON.parse(named[1]!) as string;
      } catch {
        return body;
      }
    })
    .join(" ");
}

/** The reference's outline (`[frame-node] role: name` lines) as running text. */
export function referenceText(pageText: string): string {
  return pageText
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/^\[[^\]]*\]\s*/, "")
        .replace(/^[A-Za-z]+: ?/, ""),
    )
    .join(" ");
}

/** Share of `sentences` found in `text` (1 when the page has none). */
export function recall(sentences: string[], text: string): number {
  if (sentences.length === 0) return 1;
  const haystack = ` ${words(text)} `;
  let found = 0;
  for (const s of sentences) if (haystack.includes(` ${s} `)) found++;
  return found / sentences.length;
}

/**
 * Playwright MCP's snapshot (its YAML: `- role "name" [ref=e2] [level=1]: text`) as running
 * text: each line gives its name and its text; `/url:` and other `/prop:` lines, roles, `[…]`
 * attributes and YAML quoting are taken off.
 */
export function playwrightMcpText(snapshot: string): string {
  return snapshot
    .split("\n")
    .map((line) => {
      let body = line.trim().replace(/^- /, "");
      if (body.startsWith("/")) return "";
      // A key YAML had to quote: the whole `role "name" [attrs]` in single quotes.
      const quotedKey = /^'((?:[^']|'')*)'(:?)\s*(.*)$/.exec(body);
      if (quotedKey) body = `${quotedKey[1]!.replace(/''/g, "'")}${quotedKey[2]} ${quotedKey[3]}`;
      const m = /^[a-z]+(?: ("(?:[^"\\]|\\.)*"))?((?: \[[^\]]*\])*):?\s*(.*)$/.exec(body);
      if (!m) return body;
      const name = m[1] ? unquoteJson(m[1]) : "";
      return `${name} ${yamlScalar(m[3]!)}`.trim();
    })
    .join(" ");
}

function unquoteJson(s: string): string {
  try {
    return JSON.parse(s) as string;
  } catch {
    return s.slice(1, -1);
  }
}

function yamlScalar(s: string): string {
  if (s.startsWith('"')) return unquoteJson(s);
  if (s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  return s;
}
