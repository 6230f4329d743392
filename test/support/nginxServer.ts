/**
 * Debian's nginx on 127.0.0.1 and a free port, running the committed deploy/nginx.conf in front
 * of the given instances: the file is read as it is, only its `listen` and `server` lines
 * pointed at the test's ports, inside a main configuration whose paths are a temporary folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepAcrossTests } from "./keptProcesses.js";
import { freePort } from "./ports.js";
import { within } from "./waiting.js";

export const NGINX_CONF = join(import.meta.dirname, "..", "..", "deploy", "nginx.conf");

export interface NginxServer {
  url: string;
  stop(): Promise<void>;
}

/** `port`: chosen beforehand when the instances must know nginx's address (their public URL). */
export async function startNginx(upstreams: string[], port?: number): Promise<NginxServer> {
  const dir = await mkdtemp(join(tmpdir(), "wayfarer-nginx-"));
  port ??= await freePort();
  const committed = await readFile(NGINX_CONF, "utf8");
  const servers = upstreams.map((u) => `    server ${new URL(u).host};`).join("\n");
  const site = committed
    .replace(/listen 8080;/, `listen 127.0.0.1:${port};`)
    .replace(/(upstream wayfarer \{\n)(?:\s*server [^\n]+;\n)+/, `$1${servers}\n`);
  if (!site.includes(`listen 127.0.0.1:${port};`) || !site.includes(servers)) {
    throw new Error("deploy/nginx.conf no longer has the listen and server lines this test sets");
  }
  await writeFile(join(dir, "wayfarer.conf"), site);
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  await writeFile(
    join(dir, "nginx.conf"),
    [
      "daemon off;",
      // As root, nginx's workers would drop to nobody, who cannot enter this folder.
      process.getuid?.() === 0 ? "user root;" : "",
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${join(dir, "error.log")} warn;`,
      "events { worker_connections 512; }",
      "http {",
      "  access_log off;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((n) => `  ${temp(n)}`),
      `  include ${join(dir, "wayfarer.conf")};`,
      "}",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    "nginx",
    ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  keepAcrossTests(child.pid);
  let said = "";
  child.stderr?.on("data", (d: Buffer) => {
    said += d.toString();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = `http://127.0.0.1:${port}`;
  await within(
    10_000,
    "nginx answering",
    (async () => {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`nginx exited: ${said}`);
        const ok = await fetch(`${url}/nginx-health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
  );
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        // Fast shutdown: open connections (a CDP WebSocket) are closed, not waited for.
        child.kill("SIGTERM");
        await within(10_000, "nginx's exit", exited).catch(() => child.kill("SIGKILL"));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
