/**
 * `/start`'s `browser` field as the reference's v1 takes it (BrowserConfig,
 * LocalBrowserLaunchOptions): which browser the session drives and how it is launched. This is
 * the wire's shape only; what a service honours of it is its own policy
 * (lib/service/startBrowser.ts). The launch options are strict, as the reference's: an unknown
 * key is a 400 naming it. `browser` itself drops keys it does not know, as the reference's does.
 */
import { z } from "zod";

/** A proxy as the reference spells it (its unknown keys dropped, as the reference's). */
const WireProxySchema = z.object({
  server: z.string(),
  bypass: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
});

export const WireLaunchOptionsSchema = z
  .strictObject({
    args: z.array(z.string()).optional().describe("Extra Chromium switches."),
    executablePath: z.string().optional().describe("The browser binary to launch."),
    port: z.number().optional().describe("A fixed remote-debugging port."),
    userDataDir: z.string().optional().describe("The profile folder."),
    preserveUserDataDir: z.boolean().optional().describe("Keep the profile folder after close."),
    headless: z.boolean().optional(),
    devtools: z.boolean().optional().describe("Open DevTools for each tab (implies headful)."),
    chromiumSandbox: z.boolean().optional().describe("Chromium's own sandbox."),
    ignoreDefaultArgs: z
      .union([z.boolean(), z.array(z.string())])
      .optional()
      .describe("Drop the default switches (all, or those listed)."),
    proxy: WireProxySchema.optional(),
    locale: z.string().optional().describe("The pages' language and Intl locale, e.g. de-DE."),
    viewport: z
      .object({ width: z.number(), height: z.number() })
      .optional()
      .describe("The page size, CSS pixels."),
    deviceScaleFactor: z.number().optional().describe("Device pixels per CSS pixel."),
    hasTouch: z.boolean().optional().describe("Pages see a touch screen."),
    ignoreHTTPSErrors: z.boolean().optional().describe("Accept any certificate."),
    cdpUrl: z.string().optional().describe("Attach to this browser instead of launching one."),
    cdpHeaders: z
      .record(z.string(), z.string())
      .optional()
      .describe("Headers sent with the connection to cdpUrl (its host's token)."),
    connectTimeoutMs: z.number().optional().describe("How long launching or attaching may take."),
    downloadsPath: z.string().optional().describe("Where downloads are saved."),
    acceptDownloads: z.boolean().optional().describe("false: downloads are refused."),
  })
  .describe("How the session's browser is launched (the reference's LocalBrowserLaunchOptions).");
export type WireLaunchOptions = z.infer<typeof WireLaunchOptionsSchema>;

export const BrowserConfigSchema = z
  .object({
    type: z
      .enum(["local", "browserbase"])
      .optional()
      // Alone, as the Python SDK's local mode sends it: the service's own browser. The reference
      // 3.6.1 refused that (cdpUrl or launchOptions required); its later servers take it.
      .describe('"local": a browser of the service (or yours, by cdpUrl). Absent: the same.'),
    cdpUrl: z.string().optional().describe("Attach to your own browser: its CDP address."),
    launchOptions: WireLaunchOptionsSchema.optional(),
  })
  .describe("The session's browser (the reference's BrowserConfig).");
export type BrowserConfig = z.infer<typeof BrowserConfigSchema>;
