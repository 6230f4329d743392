/**
 * `%name%` variables: filled into what is typed at the last moment, and hidden again wherever
 * their values show up (outlines, messages, results), also as URLs write them.
 */
import type { ElementIdentity } from "./api/operations.js";
import { ServiceError, ServiceValidationError } from "./errors.js";
import type { Variables } from "./options.js";

/**
 * Replaces every variable's value in `text` by its `%name%` token (values of 2+ characters),
 * also as URLs write it (`a%40b.c`, `green+tea`, `x%21`, lower-case hex): a typed value often
 * ends up in a query.
 */
export function hideVariables(text: string, variables: Variables | undefined): string {
  return variableHider(variables)(text);
}

/**
 * hideVariables with the forms worked out once: for many texts under the same variables (each
 * line of an outline).
 */
export function variableHider(variables: Variables | undefined): (text: string) => string {
  const values = Object.entries(variables ?? {})
    .flatMap(([name, v]) =>
      valueForms(String(typeof v === "object" ? v.value : v)).map((form) => [name, form] as const),
    )
    .filter(([, value]) => value.length >= 2)
    .sort((a, b) => b[1].length - a[1].length);
  return (text) => {
    let out = text;
    for (const [name, value] of values) out = out.split(value).join(`%${name}%`);
    return out;
  };
}

/** An element's identity with the values it shows as their %name%, as cache entries keep it. */
export function hideIdentity<I extends ElementIdentity | null>(
  identity: I,
  variables: Variables | undefined,
): I {
  if (!identity || !variables) return identity;
  return {
    role: identity.role,
    name: hideVariables(identity.name, variables),
    context: hideVariables(identity.context, variables),
  } as I;
}

/**
 * Every form a value takes in what we write: as it is, with white space collapsed, as URLs
 * write it, and as JSON and HTML escape it. The outline hides values before it quotes
 * (lib/snapshot/quoting.ts); the escaped forms are for messages that quote a value themselves.
 */
function valueForms(value: string): string[] {
  // The outline collapses white space in what it shows ("a  b" reads "a b").
  const collapsed = value.replace(/\s+/g, " ").trim();
  return collapsed === value
    ? escapedForms(value)
    : [...new Set([...escapedForms(value), ...escapedForms(collapsed)])];
}

function escapedForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const html = value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
  const forms = [
    ...urlForms(value),
    json,
    html,
    html.replace(/'/g, "&#39;"),
    html.replace(/'/g, "&#x27;"),
  ];
  return [...new Set([...forms, JSON.stringify(html).slice(1, -1)])];
}

/** A value as it is, and as encodeURIComponent, a form submission, RFC 3986 and lower-case hex write it. */
function urlForms(value: string): string[] {
  const component = encodeURIComponent(value);
  const form = new URLSearchParams({ v: value }).toString().slice(2);
  // RFC 3986 strict, as many encoders write it: !'()* escaped too, space as %20.
  const strict = component.replace(
    /[!'()*~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  const forms = [value, component, component.replace(/%20/g, "+"), form, strict];
  const lower = forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  return [...new Set([...forms, ...lower])];
}

/** The value of each `%name%` token in `text`; an unknown name is an error, not a guess. */
export function fillVariables(text: string, variables: Variables | undefined): string {
  return text.replace(/%(\w+)%/g, (token, name: string) => {
    if (!variables || !Object.hasOwn(variables, name)) {
      throw new ServiceValidationError("act.options.variables", [
        { path: [name], message: `the action uses ${token}, but no variable "${name}" was given` },
      ]);
    }
    const v = variables[name]!;
    return String(typeof v === "object" ? v.value : v);
  });
}

/** The variables whose `%name%` tokens `text` carries (unknown names are left out). */
export function variablesIn(text: string, variables: Variables | undefined): Variables {
  const found: Variables = {};
  for (const [, name] of text.matchAll(/%(\w+)%/g)) {
    if (variables && name && Object.hasOwn(variables, name)) found[name] = variables[name]!;
  }
  return found;
}

/** The origin of a URL's document; "null" for an opaque one (about:blank, data:, junk). */
export function originOf(url: string): string {
  const parsed = URL.parse(url);
  return parsed && /^https?:$/.test(parsed.protocol) ? parsed.origin : "null";
}

/** Typing a variable's value where it does not belong: the tool's error, read by the model. */
export class VariableOriginRefused extends ServiceError {}

/**
 * Refuses to type a variable outside where it belongs: the origin the run started on and the
 * origins its definition names. `where`: the origin of the document the keys would go to. A
 * page's words cannot move a value to another site: that site is simply not on its list.
 */
export function checkTypedWhere(
  text: string,
  variables: Variables | undefined,
  startOrigin: string,
  where: string,
): void {
  for (const [name, v] of Object.entries(variablesIn(text, variables))) {
    const declared = typeof v === "object" ? (v.origins ?? []) : [];
    const allowed = [...new Set([startOrigin, ...declared.map(originOf)])].filter(
      (o) => o !== "null",
    );
    if (where !== "null" && allowed.includes(where)) continue;
    const list = allowed.length ? allowed.join(", ") : "no origin (the run began on no web page)";
    throw new VariableOriginRefused(
      `%${name}% may be typed only on ${list}; the field is on ${where === "null" ? "a page with no origin" : where}. Nothing was typed.`,
    );
  }
}
