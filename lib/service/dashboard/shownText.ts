/**
 * What the dashboard may show of a session's text: the values callers typed through variables
 * back as their `%name%` tokens (their pictures are painted over with the same values), and the
 * secrets the session's logger knows (API keys, model keys) as `[REDACTED]`. Every text the
 * dashboard keeps goes through here before it is kept, so nothing kept holds them.
 */
import type { Redactor } from "../../log.js";
import { variableHider } from "../../variables.js";

export class ShownText {
  /** Each value typed, with the name it came by (the first, when two names share a value). */
  private readonly named = new Map<string, string>();
  private hiders: ((text: string) => string)[] = [];

  constructor(private readonly redactor: Redactor | undefined) {}

  /** A caller's variables (plain values or `{value}`), from now on hidden in what is shown. */
  remember(variables: Record<string, unknown> | undefined): void {
    let added = false;
    for (const [name, v] of Object.entries(variables ?? {})) {
      const value = v && typeof v === "object" ? (v as { value?: unknown }).value : v;
      if (typeof value !== "string" && typeof value !== "number") continue;
      const text = String(value);
      if (this.named.has(text)) continue;
      this.named.set(text, name);
      added = true;
    }
    if (!added) return;
    // Longest first: a value inside another never leaves the rest of the longer one showing.
    this.hiders = [...this.named]
      .sort((a, b) => b[0].length - a[0].length)
      .map(([value, name]) => variableHider({ [name]: value }));
  }

  /** The values typed so far: the pictures paint them over. */
  get values(): string[] {
    return [...this.named.keys()];
  }

  /** `text` as the dashboard may show it. */
  text(text: string): string {
    let out = text;
    for (const hide of this.hiders) out = hide(out);
    return this.redactor ? this.redactor.text(out) : out;
  }

  /** `text` shown, at most `max` characters, saying how long it was when it is cut. */
  bounded(text: string, max: number): string {
    const shown = this.text(text);
    if (shown.length <= max) return shown;
    return `${shown.slice(0, max)}\n… cut here: ${shown.length.toLocaleString("en")} characters in all`;
  }
}
