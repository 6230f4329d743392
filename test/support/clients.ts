/**
 * Opens clients for a test and, after it, closes them and proves that nothing they started is
 * still running and that the temporary profile they made is gone.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, expect } from "vitest";
import { Client, type ClientInternals } from "../../lib/client.js";
import type { V3Options } from "../../lib/index.js";
import { RemoteEngine } from "../../lib/remote/remoteEngine.js";
import { remoteSettings } from "../../lib/remote/remoteSettings.js";
import { ServiceHttp } from "../../lib/remote/serviceHttp.js";
import { loopbackEngine } from "./loopback.js";
import { commandLine, waitUntilGone } from "./processes.js";
import { remoteServiceUrl } from "./remoteAddress.js";
import { KEYS } from "./service.js";

/**
 * "loopback" and "remote" (the vitest projects of those names set it): every client's operations
 * cross the JSON loopback, or every client is env "REMOTE" on a real service on 127.0.0.1
 * (remoteService.ts), so the same tests prove the behaviour survives the wire and the service.
 */
export const ENGINE =
  process.env.WAYFARER_TEST_ENGINE === "loopback" || process.env.WAYFARER_TEST_ENGINE === "remote"
    ? process.env.WAYFARER_TEST_ENGINE
    : "local";
/** What a test gives `new Client(options, internals)` (or runJob) to use that engine. */
export const engineInternals: ClientInternals =
  ENGINE === "loopback"
    ? { engine: loopbackEngine }
    : ENGINE === "remote"
      ? {
          // The server cache off: each call asks the model, as LOCAL's do.
          // The service's address given here, not read from the environment a test may change.
          engine: (parts) => {
            const options = { ...parts.options, env: "REMOTE" as const, serverCache: false };
            const settings = remoteSettings(options);
            const http = new ServiceHttp({
              baseUrl: `${remoteServiceUrl()}/v1`,
              apiKey: KEYS.alpha,
              modelApiKey: settings.modelApiKey,
            });
            return new RemoteEngine({ ...parts, options }, http, settings);
          },
        }
      : {};

export interface OpenedClient {
  client: Client;
  pid: number | undefined;
  sessionDir: string | undefined;
}

export function useClients() {
  const opened: OpenedClient[] = [];
  afterEach(async () => {
    const all = opened.splice(0);
    for (const o of all) await o.client.close();
    for (const o of all) {
      if (o.pid !== undefined)
        expect(await waitUntilGone(o.pid), `processes of browser ${o.pid}`).toEqual([]);
      if (o.sessionDir)
        expect(existsSync(o.sessionDir), `the launch folder ${o.sessionDir}`).toBe(false);
    }
  });
  return {
    /** A LOCAL client, initialised, quiet unless the test gives a logger. */
    async open(options: Partial<V3Options> = {}): Promise<Client> {
      const client = new Client(
        { env: "LOCAL", disablePino: true, verbose: 0, ...options } as V3Options,
        engineInternals,
      );
      const entry: OpenedClient = { client, pid: undefined, sessionDir: undefined };
      opened.push(entry);
      await client.init();
      entry.pid = client.browserPid;
      if (entry.pid !== undefined && !options.localBrowserLaunchOptions?.userDataDir) {
        // The temporary profile sits in the launch's own folder, which must be gone after close.
        const profile = userDataDirOf(entry.pid);
        entry.sessionDir = profile && dirname(profile);
      }
      return client;
    },
    /** The same, with its first page at `url`. */
    async openOn(url: string, options: Partial<V3Options> = {}): Promise<Client> {
      const client = await this.open(options);
      await client.context.activePage()!.goto(url);
      return client;
    },
  };
}

export function userDataDirOf(pid: number): string | undefined {
  return commandLine(pid)
    .find((a) => a.startsWith("--user-data-dir="))
    ?.slice("--user-data-dir=".length);
}
