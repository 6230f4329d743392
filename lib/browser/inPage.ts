/**
 * Functions we send into the page are serialised with toString(). esbuild's keepNames (used by
 * tsx and some serverless bundlers) rewrites named inner functions into calls to a `__name`
 * helper that exists only in Node, so the page would throw "__name is not defined". Such a
 * function is wrapped once with a local no-op `__name`; any other is sent as it is.
 */
const wrapped = new WeakMap<object, unknown>();

// biome-ignore lint/suspicious/noExplicitAny: the wrapper must accept any page function's signature
export function inPage<F extends (...args: any[]) => unknown>(fn: F): F {
  const known = wrapped.get(fn);
  if (known) return known as F;
  const source = fn.toString();
  const safe = source.includes("__name")
    ? (new Function("...args", `const __name = (f) => f; return (${source})(...args);`) as F)
    : fn;
  wrapped.set(fn, safe);
  return safe;
}
