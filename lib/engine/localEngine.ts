/**
 * env "LOCAL": a Chromium on this machine, launched by us or attached to by cdpUrl.
 */
import { Context, type ContextSettings } from "../browser/context.js";
import { type LaunchedBrowser, launchBrowser } from "../browser/launch.js";
import type { LaunchProfile } from "../browser/launchArgs.js";
import { answerProxyChallenges } from "../browser/proxyAuth.js";
import type { Logger } from "../log.js";
import type { ResolvedLaunchOptions } from "../options.js";
import type { Engine } from "./engine.js";

export interface LocalEngineOptions {
  launch: ResolvedLaunchOptions;
  profile: LaunchProfile;
  keepAlive: boolean | undefined;
  launchTimeoutMs: number;
  logger: Logger;
  context: Omit<ContextSettings, "viewport" | "logger">;
}

export class LocalEngine implements Engine {
  private launched: LaunchedBrowser | undefined;
  private context: Context | undefined;

  constructor(private readonly options: LocalEngineOptions) {}

  get connectURL() {
    return this.launched?.wsEndpoint;
  }
  get browserPid() {
    return this.launched?.pid;
  }
  readonly sessionId = undefined;
  readonly sessionUrl = undefined;
  readonly debugUrl = undefined;

  async init(): Promise<Context> {
    const { logger, launch } = this.options;
    const launched = await launchBrowser({
      options: launch,
      profile: this.options.profile,
      timeoutMs: this.options.launchTimeoutMs,
    });
    this.launched = launched;
    try {
      if (launched.refusedArgs.length) {
        logger.warn("browser", "refused launch arguments that switch web security off", {
          refused: launched.refusedArgs,
        });
      }
      logger.debug("browser", launch.cdpUrl ? "attached to browser" : "launched browser", {
        pid: launched.pid,
        executablePath: launched.executablePath,
        args: launched.args,
      });
      const playwrightContext = launched.browser.contexts()[0];
      if (!playwrightContext) throw new Error("the browser has no default context");
      if (launch.proxy?.username) {
        await answerProxyChallenges(launched.browser, {
          username: launch.proxy.username,
          password: launch.proxy.password ?? "",
        });
      }
      const context = new Context(playwrightContext, {
        ...this.options.context,
        viewport: launch.viewport,
        logger,
      });
      await context.adoptExisting();
      if (!context.activePage()) await context.newPage({ timeout: this.options.launchTimeoutMs });
      this.context = context;
      return context;
    } catch (error) {
      // Leave nothing running that we started; a browser we attached to is only let go.
      if (launch.cdpUrl) await launched.detach();
      else await launched.terminate(true);
      throw error;
    }
  }

  async close({ force }: { force: boolean }): Promise<void> {
    const launched = this.launched;
    if (!launched) return;
    await this.context?.settled();
    // A browser we attached to is not ours to end unless keepAlive: false says so.
    const keepAlive = this.options.keepAlive ?? Boolean(this.options.launch.cdpUrl);
    if (keepAlive) {
      await launched.detach();
      this.options.logger.info("browser", "left the browser running (keepAlive)", {
        connectURL: launched.wsEndpoint,
        userDataDir: launched.userDataDir,
      });
    } else {
      await launched.terminate(force);
    }
  }
}
