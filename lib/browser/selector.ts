/**
 * The selector forms every `selector` option accepts, parsed into frame hops and a target:
 * - `xpath=/html/body/...`, or a bare XPath (starts with `/` or `(`). A path runs through an
 *   `iframe` step into the frame's document (`.../iframe[1]/html/body/...`); an inner `//` is a
 *   shadow-root boundary when the plain XPath matches nothing.
 * - CSS (anything else), with `>>` between frame hops: `iframe#pay >> button.submit`.
 */

import { InvalidSelectorError, XPathResolutionError } from "../errors.js";

export type SelectorPart = { kind: "xpath"; xpath: string } | { kind: "css"; css: string };

export interface ParsedSelector {
  source: string;
  /** Each selects an iframe element, in the document of the hop before it. */
  frames: SelectorPart[];
  target: SelectorPart;
}

/**
 * What can be told without a page is checked here (an InvalidSelectorError); what only the
 * page's XPath and CSS engines can tell is checked when the selector is resolved.
 */
export function parseSelector(selector: string): ParsedSelector {
  const source = selector;
  const trimmed = selector.trim();
  const invalid = (reason: string) => new InvalidSelectorError(selector, reason);
  if (!trimmed) throw invalid("it is empty");
  if (trimmed.startsWith("xpath=") || trimmed.startsWith("/") || trimmed.startsWith("(")) {
    const xpath = trimmed.startsWith("xpath=") ? trimmed.slice("xpath=".length).trim() : trimmed;
    if (!xpath) throw invalid('there is no XPath after "xpath="');
    const unbalanced = unbalancedIn(xpath);
    if (unbalanced) throw invalid(unbalanced);
    const parts = splitXPathAtFrames(xpath).map((x): SelectorPart => ({ kind: "xpath", xpath: x }));
    return { source, frames: parts.slice(0, -1), target: parts[parts.length - 1]! };
  }
  const parts = trimmed
    .split(">>")
    .map((s) => s.trim())
    .map((css): SelectorPart => {
      if (!css) throw invalid('it has an empty part around ">>"');
      return { kind: "css", css };
    });
  return { source, frames: parts.slice(0, -1), target: parts[parts.length - 1]! };
}

/** Why an XPath's brackets, parentheses or quotes do not pair up; undefined when they do. */
function unbalancedIn(xpath: string): string | undefined {
  const open: string[] = [];
  let quote: string | undefined;
  for (const ch of xpath) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[" || ch === "(") open.push(ch);
    else if (ch === "]" || ch === ")") {
      const expected = ch === "]" ? "[" : "(";
      if (open.pop() !== expected) return `its "${ch}" closes no "${expected}"`;
    }
  }
  if (quote) return `its quoted string (from ${quote}) is not closed`;
  if (open.length) return `its "${open.at(-1)}" is not closed`;
  return undefined;
}

/**
 * Walks an XPath fragment character by character, telling for each one the bracket/paren depth
 * after it and whether it is part of a string literal, so that callers split only at the top.
 */
function* scan(text: string): Generator<{ ch: string; depth: number; quoted: boolean }> {
  let depth = 0;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      yield { ch, depth, quoted: true };
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[" || ch === "(") depth++;
    else if (ch === "]" || ch === ")") depth--;
    yield { ch, depth, quoted: quote !== undefined };
  }
}

/**
 * Splits an XPath at its location-path slashes, ignoring those inside predicates, parentheses
 * and string literals. `//` yields an empty step.
 */
export function xpathSteps(xpath: string): string[] {
  const steps: string[] = [];
  let current = "";
  for (const { ch, depth, quoted } of scan(xpath)) {
    if (ch === "/" && depth === 0 && !quoted) {
      steps.push(current);
      current = "";
    } else current += ch;
  }
  steps.push(current);
  return steps;
}

const FRAME_STEP = /^i?frame(\[[^\]]*\])*$/i;
const HTML_STEP = /^html(\[1\])?$/i;

/** `/a/iframe[2]/html/body/b` → [`/a/iframe[2]`, `/html/body/b`]. */
function splitXPathAtFrames(xpath: string): string[] {
  const steps = xpathSteps(xpath);
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i < steps.length - 1; i++) {
    if (FRAME_STEP.test(steps[i]!) && HTML_STEP.test(steps[i + 1]!)) {
      out.push(steps.slice(start, i + 1).join("/"));
      start = i + 1;
    }
  }
  out.push(steps.slice(start).join("/"));
  return out.map((p, i) => (i === 0 ? p : `/${p}`));
}

/**
 * The same path with each inner `//` read as a shadow-root boundary: the pieces to evaluate in
 * turn, each relative to the shadow root of the previous piece's match. Undefined when the path
 * has no inner `//`.
 */
export function shadowPieces(xpath: string): string[] | undefined {
  const steps = xpathSteps(xpath);
  const pieces: string[] = [];
  let current: string[] = [];
  // Steps 0 and 1 empty means the path starts with "//": that one is a plain descendant step.
  const startsWithDescendant = steps[0] === "" && steps[1] === "";
  for (let i = 0; i < steps.length; i++) {
    const boundary = steps[i] === "" && i > 0 && !(startsWithDescendant && i === 1);
    if (boundary) {
      pieces.push(current.join("/"));
      current = [];
      continue;
    }
    current.push(steps[i]!);
  }
  pieces.push(current.join("/"));
  if (pieces.length < 2 || pieces.some((p) => p === "")) return undefined;
  return pieces;
}

export interface FirstStep {
  name: string;
  /** Each predicate's inside, in order: `2`, `last()`, `@id='x'`. */
  predicates: string[];
}

/** A shadow root cannot be an XPath context node: its first step is matched among its children. */
export function firstStepOf(xpath: string): { first: FirstStep; rest: string } {
  const [head = "", ...tail] = xpathSteps(xpath);
  const name = /^[\w*:.-]+/.exec(head)?.[0];
  const predicates = name === undefined ? undefined : splitPredicates(head.slice(name.length));
  if (name === undefined || predicates === undefined) {
    throw new XPathResolutionError(xpath, `its step "${head}" cannot start inside a shadow root`);
  }
  return { first: { name, predicates }, rest: tail.join("/") };
}

/** `[a][b='[x]']` → [`a`, `b='[x]'`]; undefined when the text is not a run of predicates. */
function splitPredicates(text: string): string[] | undefined {
  const out: string[] = [];
  let current: string | undefined; // undefined between predicates
  let depth = 0;
  for (const step of scan(text)) {
    depth = step.depth;
    if (step.quoted) {
      if (current === undefined) return undefined;
      current += step.ch;
    } else if (current === undefined) {
      if (step.ch !== "[") return undefined; // text between predicates
      current = "";
    } else if (step.ch === "]" && depth === 0) {
      out.push(current);
      current = undefined;
    } else current += step.ch;
  }
  return depth === 0 && current === undefined ? out : undefined;
}
