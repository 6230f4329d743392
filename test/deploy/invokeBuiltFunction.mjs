// Calls a function `vercel build` made, as the platform's Node launcher calls a Web-standard
// handler: from its task folder (the working directory, as /var/task), the module that
// .vc-config.json names is imported, `default` unwrapped, and the export named after the method
// called with a Request; a method it does not export is a 405. Plain Node, no TypeScript loader:
// the function runs as built. Prints one JSON line: the answer, and the processes the call left.
//
//   node invokeBuiltFunction.mjs <run.func> <METHOD> [<Authorization> | -] [<body>]
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [folder, method, authorization = "-", body] = process.argv.slice(2);
const task = resolve(folder);
const config = JSON.parse(readFileSync(join(task, ".vc-config.json"), "utf8"));
process.chdir(task);

// What the launcher sets up before the function's code runs: the request context.
const pending = [];
Object.defineProperty(globalThis, Symbol.for("@vercel/request-context"), {
  configurable: true,
  value: { get: () => ({ waitUntil: (p) => pending.push(p) }) },
});

let handler = await import(pathToFileURL(join(task, config.handler)).href);
for (let i = 0; i < 5 && handler.default; i++) handler = handler.default;
const headers = { "user-agent": "vercel-cron/1.0" };
if (authorization !== "-") headers.authorization = authorization;
if (body !== undefined) headers["content-type"] = "application/json";
const request = new Request("https://wayfarer.example/api/run", { method, headers, body });
const response =
  typeof handler[method] === "function"
    ? await handler[method](request)
    : new Response(null, { status: 405 });
const text = await response.text();
await Promise.allSettled(pending);
console.log(
  JSON.stringify({
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: text,
    left: descendants(process.pid),
  }),
);

/** Live processes started under this one (a browser the call did not close). */
function descendants(root) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") parents.set(Number(entry), Number(fields[1]));
    } catch {
      // Ended while read.
    }
  }
  const found = [];
  const walk = (pid) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}
