/**
 * env "LOCAL": a Chromium on this machine, launched by us or attached to by cdpUrl.
 */

import type { CdpHub } from "../browser/cdpHub.js";
import { Context, type ContextSettings } from "../browser/context.js";
import { openEgressProxy } from "../browser/egressHost.js";
import { type EgressProxy, startEgressProxy } from "../browser/egressProxy.js";
import { type LaunchedBrowser, launchBrowser, type RunAs } from "../browser/launch.js";
import type { LaunchProfile } from "../browser/launchArgs.js";
import { answerProxyChallenges } from "../browser/proxyAuth.js";
import { localContextKeeper } from "../contexts/localContext.js";
import type { ProfileKeeper } from "../contexts/profileKeeper.js";
import { ServiceError, ServiceValidationError } from "../errors.js";
import type { Logger } from "../log.js";
import type { AddressRule } from "../net/addressRule.js";
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
  /** Every request of the browser through the egress proxy, under this rule. */
  egress?: AddressRule;
  /** A connection to a browser someone else keeps (a remote session): letting go is not news. */
  quietDetach?: boolean;
  /** A browser for strangers (a service's session): CDP over a pipe, maybe as another user. */
  confine?: Confinement;
}

/** How a browser that runs strangers' pages and CDP is kept apart from its host. */
export interface Confinement {
  /** The user it runs as, when we are root (Chromium's sandbox needs a user that is not). */
  runAs?: RunAs;
  /** A browser launched ahead under this same confinement (the service's warm pool): taken, not launched. */
  warm?: WarmBrowser;
  /** A context's profile, restored into the launch and saved after it (never with `warm`). */
  keeper?: ProfileKeeper;
}

/**
 * A blank browser launched before anyone asked for it, exactly as start() would launch it for
 * default launch options (its own folder, CDP over a pipe, as `runAs`), behind an egress guard
 * of its own. The engine that takes it owns it: closing the engine ends both.
 */
export interface WarmBrowser {
  launched: LaunchedBrowser;
  egress: EgressProxy;
  /** The guard's refusals are told to `listener` from now on (the session's log). */
  hearRefusals(listener: (target: string, reason: string) => void): void;
}

const PROXY_SWITCH = /^--(?:proxy-|no-proxy-server|proxy-auto-detect|proxy-pac-url)/;

export class LocalEngine implements Engine {
  readonly operations: Operations;
  private launched: LaunchedBrowser | undefined;
  /** Set by close() or a failed init: a launch under way is ended at once. */
  private abandoned = false;
  private readonly launching = new AbortController();
  private launch: Promise<LaunchedBrowser> | undefined;
  private ready = false;
  private pages: Context | undefined;
  private egress: EgressProxy | undefined;

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
  browserFolder: string | undefined;
  cdpHub: CdpHub | undefined;
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
    if (!launched) return this.closeEgress();
    if (!this.ready) return release(launched).finally(() => this.closeEgress());
    // A browser we attached to is not ours to end unless keepAlive: false says so. After a
    // successful init, keepAlive wins over force: force only skips the graceful wait.
    const keepAlive = this.options.keepAlive ?? Boolean(this.options.launch.cdpUrl);
    if (keepAlive) {
      await launched.detach();
      // The browser left running still needs its proxy: it serves while this process lives.
      this.egress?.unref();
      this.connectURL = launched.wsEndpoint;
      if (this.options.quietDetach) return;
      this.options.logger.info("browser", "left the browser running (keepAlive)", {
        connectURL: launched.wsEndpoint,
        // Its folder goes with it: whoever ends that browser later removes it.
        launchDir: launched.launchDir,
      });
    } else {
      this.connectURL = undefined;
      await launched.terminate(force);
      await this.closeEgress();
    }
  }

  private async closeEgress(): Promise<void> {
    const egress = this.egress;
    this.egress = undefined;
    await egress?.close();
  }

  /** The launch options, pointed at the egress proxy when the rule is on. */
  /** The library's `context` option: its file's profile restored, and saved on close (persist). */
  private async contextKeeper(): Promise<ProfileKeeper | undefined> {
    const { context, userDataDir, cdpUrl } = this.options.launch;
    if (!context) return undefined;
    if (userDataDir || cdpUrl) {
      throw new ServiceValidationError("localBrowserLaunchOptions", [
        {
          path: ["localBrowserLaunchOptions", "context"],
          message: `a context brings its own profile: not with ${userDataDir ? "userDataDir" : "cdpUrl"}`,
        },
      ]);
    }
    const { logger } = this.options;
    return localContextKeeper(context, (line) => logger.warn("browser", line));
  }

  private async launchOptions(): Promise<ResolvedLaunchOptions> {
    const { launch, egress, logger } = this.options;
    if (!egress) return launch;
    // A service's session (confined): in the guard's own unprivileged process when we are root.
    const open = this.options.confine ? openEgressProxy : startEgressProxy;
    this.egress = await open({ rule: egress, onRefused: this.refused });
    const guarded = behindGuard(launch, this.egress.url);
    if (guarded.dropped.length) {
      logger.warn("browser", "dropped proxy switches: the egress guard is the browser's proxy", {
        dropped: guarded.dropped,
      });
    }
    return guarded.options;
  }

  private readonly refused = (target: string, reason: string) =>
    this.options.logger.info("browser", "a request was refused by the egress rule", {
      target,
      reason,
    });

  private async start(deadline: Deadline): Promise<Context> {
    const { logger, launch } = this.options;
    const warm = this.options.confine?.warm;
    deadline.step(warm ? "taking a warm browser" : launch.cdpUrl ? "attaching" : "launching");
    if (warm) {
      this.egress = warm.egress;
      warm.hearRefusals(this.refused);
      this.launch = Promise.resolve(warm.launched);
    } else {
      const keeper = this.options.confine?.keeper ?? (await this.contextKeeper());
      const options = await this.launchOptions();
      this.launch = launchBrowser({
        options,
        profile: this.options.profile,
        timeoutMs: deadline.remaining(),
        signal: this.launching.signal,
        ...(this.options.confine ? { pipe: true, runAs: this.options.confine.runAs } : {}),
        ...(keeper ? { keeper } : {}),
      });
    }
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
    logger.debug(
      "browser",
      warm ? "took a warm browser" : launch.cdpUrl ? "attached to browser" : "launched browser",
      {
        pid: launched.pid,
        executablePath: launched.executablePath,
        args: launched.args,
      },
    );
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
    this.browserFolder = launched.launchDir;
    this.cdpHub = launched.hub;
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
    await this.closeEgress();
  }
}

/** Ends a browser we launched; a browser we attached to is only let go. */
function release(launched: LaunchedBrowser): Promise<void> {
  return launched.pid === undefined ? launched.detach() : launched.terminate(true);
}

/**
 * The launch options with the egress guard as the browser's one proxy: a proxy switch of the
 * caller's would take the browser around it (dropped, and answered). `<-loopback>`: the
 * loopback goes through the proxy too (Chromium bypasses it by default).
 */
export function behindGuard(
  launch: ResolvedLaunchOptions,
  proxyUrl: string,
): { options: ResolvedLaunchOptions; dropped: string[] } {
  const args = launch.args.filter((a) => !PROXY_SWITCH.test(a));
  return {
    options: { ...launch, args, proxy: { server: proxyUrl, bypass: "<-loopback>" } },
    dropped: launch.args.filter((a) => PROXY_SWITCH.test(a)),
  };
}
