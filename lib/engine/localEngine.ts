/**
 * env "LOCAL": a Chromium on this machine, launched by us or attached to by cdpUrl.
 */
import { Context, type ContextSettings } from "../browser/context.js";
import { type LaunchedBrowser, launchBrowser } from "../browser/launch.js";
import type { LaunchProfile } from "../browser/launchArgs.js";
import { answerProxyChallenges } from "../browser/proxyAuth.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ResolvedLaunchOptions } from "../options.js";
import { type Deadline, untilAborted, withTimeout } from "../timeout.js";
import type { Engine, Operations } from "./engine.js";

export interface LocalEngineOptions {
  launch: ResolvedLaunchOptions;
  profile: LaunchProfile;
  keepAlive: boolean | undefined;
  launchTimeoutMs: number;
  logger: Logger;
  context: Omit<ContextSettings, "viewport" | "logger">;
}

export class LocalEngine implements Engine {
  readonly operations: Operations;
  private launched: LaunchedBrowser | undefined;
  /** Set by close() or a failed init: a launch under way is ended at once. */
  private abandoned = false;
  private readonly launching = new AbortController();
  private launch: Promise<LaunchedBrowser> | undefined;
  private ready = false;
  private pages: Context | undefined;

  constructor(
    private readonly options: LocalEngineOptions,
    /** The operations, given this engine's pages once init() has opened them. */
    operations: (context: () => Context) => Operations,
  ) {
    this.operations = operations(() => {
      if (!this.pages) throw new ServiceError("The browser is not open: call init() first.");
      return this.pages;
    });
  }

  /** Set once the browser is ready; kept after a keepAlive close, which is when it matters. */
  connectURL: string | undefined;
  browserPid: number | undefined;
  readonly sessionId = undefined;
  readonly sessionUrl = undefined;
  readonly debugUrl = undefined;

  async init(): Promise<Context> {
    return withTimeout(
      "init",
      this.options.launchTimeoutMs,
      "the browser to start and open its first page",
      (deadline) => this.start(deadline),
    ).catch(async (error: unknown) => {
      await this.abandon();
      throw error;
    });
  }

  async close({ force }: { force: boolean }): Promise<void> {
    this.abandoned = true;
    this.launching.abort(new Error("close() was called before the browser was ready"));
    // Let a launch under way finish its own clean-up (kill, profile removal) before we answer.
    await this.launch?.catch(() => {});
    // Kept, not cleared: a forced close must reach a graceful close already under way.
    const launched = this.launched;
    if (!launched) return;
    if (!this.ready) return release(launched);
    // A browser we attached to is not ours to end unless keepAlive: false says so. After a
    // successful init, keepAlive wins over force: force only skips the graceful wait.
    const keepAlive = this.options.keepAlive ?? Boolean(this.options.launch.cdpUrl);
    if (keepAlive) {
      await launched.detach();
      this.connectURL = launched.wsEndpoint;
      this.options.logger.info("browser", "left the browser running (keepAlive)", {
        connectURL: launched.wsEndpoint,
        // Its folder goes with it: whoever ends that browser later removes it.
        launchDir: launched.launchDir,
      });
    } else {
      this.connectURL = undefined;
      await launched.terminate(force);
    }
  }

  private async start(deadline: Deadline): Promise<Context> {
    const { logger, launch } = this.options;
    deadline.step(launch.cdpUrl ? "attaching" : "launching");
    this.launch = launchBrowser({
      options: launch,
      profile: this.options.profile,
      timeoutMs: deadline.remaining(),
      signal: this.launching.signal,
    });
    const launched = await this.launch;
    if (this.abandoned) {
      // init() already gave up (close, or its deadline): this late browser must not linger.
      await release(launched);
      throw new Error("close() was called before the browser was ready");
    }
    this.launched = launched;
    deadline.step(launch.cdpUrl ? "attached" : "launched");
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
    // Playwright calls under way when a forced close kills the browser do not always notice:
    // each step also ends when the launch is aborted.
    const step = <T>(work: Promise<T>) => untilAborted(work, this.launching.signal);
    if (launch.proxy?.username) {
      await step(
        answerProxyChallenges(launched.browser, {
          username: launch.proxy.username,
          password: launch.proxy.password ?? "",
        }),
      );
    }
    const context = new Context(playwrightContext, {
      ...this.options.context,
      viewport: launch.viewport,
      logger,
    });
    await step(context.adoptExisting());
    if (!context.activePage()) await step(context.newPage({ timeout: deadline.remaining() }));
    deadline.step("first page open");
    if (this.abandoned) throw new Error("close() was called before the browser was ready");
    this.connectURL = launched.wsEndpoint;
    this.browserPid = launched.pid;
    this.ready = true;
    this.pages = context;
    return context;
  }

  /** After a failed or abandoned init: leave nothing running that we started. */
  private async abandon(): Promise<void> {
    this.abandoned = true;
    this.launching.abort(new Error("init() gave up before the browser was ready"));
    await this.launch?.catch(() => {});
    const launched = this.launched;
    this.launched = undefined;
    if (launched) await release(launched);
  }
}

/** Ends a browser we launched; a browser we attached to is only let go. */
function release(launched: LaunchedBrowser): Promise<void> {
  return launched.pid === undefined ? launched.detach() : launched.terminate(true);
}
