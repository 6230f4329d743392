/**
 * Where a response body goes in a recording: `pages/<host>[_<port>]/<path>`, named after its
 * URL so that the folder reads like a saved site (`pages/news.example/index.html`,
 * `pages/news.example/item@id=8.html`), with an extension from its type when the path has none.
 */
const EXTENSIONS: Record<string, string> = {
  "text/html": ".html",
  "text/css": ".css",
  "text/plain": ".txt",
  "text/javascript": ".js",
  "application/javascript": ".js",
  "application/json": ".json",
  "image/svg+xml": ".svg",
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
};

/** A file name for `url`'s body, not yet in `taken` (which it joins). */
export function bodyFileName(url: string, contentType: string | undefined, taken: Set<string>) {
  const parsed = new URL(url);
  const host = safe(parsed.port ? `${parsed.hostname}_${parsed.port}` : parsed.hostname);
  const segments = parsed.pathname.split("/").filter(Boolean).map(safe);
  let last = segments.pop() ?? "index";
  if (parsed.search) last += `@${safe(parsed.search.slice(1))}`;
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!/\.[a-z0-9]{1,5}$/i.test(last)) last += EXTENSIONS[type] ?? "";
  const base = ["pages", host, ...segments, last].join("/");
  let name = base;
  for (let n = 2; taken.has(name); n++) name = base.replace(/(\.[^./]+)?$/, `~${n}$1`);
  taken.add(name);
  return name;
}

/** Bodies of these types are text: scrubbed of secrets before they are kept. */
export function isText(contentType: string | undefined): boolean {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return /^text\/|[/+](json|xml|javascript|ecmascript)$|^image\/svg/.test(type);
}

/** A path segment as a file name: safe characters only, never `.` or `..`, not too long. */
function safe(segment: string): string {
  const cleaned = decodeURIComponentSafe(segment)
    .replace(/[^A-Za-z0-9._@=,+-]/g, "_")
    .slice(0, 100);
  return /^\.+$/.test(cleaned) || cleaned === "" ? "_" : cleaned;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
