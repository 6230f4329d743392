/**
 * One spelling per route. The router matches a decoded path; anything that looks at the URL
 * before it (the key check once did, forwarding and the CDP upgrade still do) must see the same
 * path the router will. So every request-target is brought to its one canonical origin form
 * before routing, or refused when it has no single meaning.
 *
 * - absolute form (`http://host/v1/…`, RFC 9112 3.2.2): its path and query, the authority dropped;
 * - percent-encoded unreserved characters (`%76` for `v`, RFC 3986 6.2.2.2): decoded;
 * - refused: any other form (`*`, authority form), dot segments (`.`/`..`, encoded too), empty
 *   segments (`//`), an encoded `/` or `\`, a `\`, matrix parameters (`;`), control characters,
 *   and percent-encoding that is not valid.
 */

/** RFC 3986's unreserved characters: encoding them changes nothing, so they are decoded. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

export type Target = { path: string; query: string } | { refused: string };

export function canonicalTarget(raw: string): Target {
  let target = raw;
  if (!target.startsWith("/")) {
    const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
    if (!absolute)
      return { refused: "the request-target must be a path (or an absolute http URL)" };
    target = target.slice(absolute[0].length) || "/";
    if (!target.startsWith("/")) target = `/${target}`;
  }
  const cut = target.indexOf("?");
  const rawPath = cut === -1 ? target : target.slice(0, cut);
  const query = cut === -1 ? "" : target.slice(cut);
  // Control characters and a fragment never belong in a request-target.
  if ([...target].some(isControl) || target.includes("#"))
    return { refused: "control characters or a fragment" };
  if (/[\\;]/.test(rawPath)) return { refused: "a backslash or matrix parameters (;) in the path" };
  let path = "";
  for (let i = 0; i < rawPath.length; i++) {
    const c = rawPath[i]!;
    if (c !== "%") {
      path += c;
      continue;
    }
    const hex = rawPath.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { refused: "percent-encoding that is not valid" };
    const decoded = String.fromCharCode(Number.parseInt(hex, 16));
    if (decoded === "/" || decoded === "\\") return { refused: "an encoded / or \\ in the path" };
    if (decoded === ";") return { refused: "an encoded ; in the path" };
    if (isControl(decoded)) return { refused: "an encoded control character" };
    path += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
    i += 2;
  }
  const segments = path.split("/").slice(1);
  // A trailing slash leaves one empty last segment; any other empty one is a `//`.
  if (segments.slice(0, -1).some((s) => s === "")) return { refused: "an empty path segment (//)" };
  if (segments.some((s) => s === "." || s === "..")) return { refused: "a dot segment (. or ..)" };
  return { path, query };
}
