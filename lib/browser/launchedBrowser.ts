/** A browser launched by us or attached to, as the engine holds it. */
import type { Browser } from "playwright-core";
import type { CdpHub } from "./cdpHub.js";

export interface LaunchedBrowser {
  browser: Browser;
  /** CDP WebSocket URL of the browser: what `connectURL` hands out (none over a pipe). */
  wsEndpoint: string | undefined;
  /** A browser driven over a pipe: the one way in for other clients. */
  hub: CdpHub | undefined;
  pid: number | undefined;
  /** The profile folder of a browser we launched. */
  userDataDir: string | undefined;
  /** The launch's own folder (temporary profile, Chromium's temp files); ours to remove. */
  launchDir: string | undefined;
  /** Where the browser's downloads go (inside launchDir). */
  downloadsDir: string | undefined;
  executablePath: string | undefined;
  args: string[];
  refusedArgs: string[];
  /** Ends the browser and removes what we created. Idempotent; `force` kills at once. */
  terminate(force?: boolean): Promise<void>;
  /** Lets go of the browser and leaves it running. */
  detach(): Promise<void>;
}
