/**
 * env "REMOTE" (alias "BROWSERBASE"): the browser is a session of a v1 service. init() starts
 * one (or resumes `browserbaseSessionID`) and attaches to its browser over the service's CDP
 * proxy, so pages have the same API as LOCAL; act, extract, observe and agent runs go to the
 * service as streamed requests, while what needs no model (the action cache's identity checks,
 * a cached agent run's replay) runs here over the same connection. close() ends the session,
 * unless keepAlive: then it stays, to be resumed by its id.
 */
import type { Context } from "../browser/context.js";
import type { Engine, Operations } from "../engine/engine.js";
import { LocalEngine } from "../engine/localEngine.js";
import { LocalOperations } from "../engine/localOperations.js";
import type { EngineParts } from "../engine/select.js";
import { launchProfile } from "../engine/select.js";
import { WireOperations } from "../engine/wireOperations.js";
import { BrowserbaseSessionNotFoundError, ServiceError } from "../errors.js";
import { LocalBrowserLaunchOptionsSchema } from "../options.js";
import { withTimeout } from "../timeout.js";
import { remoteOperations } from "./remoteOperations.js";
import { type RemoteSettings, startBody } from "./remoteSettings.js";
import { remoteTransport } from "./remoteTransport.js";
import { ServiceAnswerError, type ServiceHttp } from "./serviceHttp.js";

const INIT_TIMEOUT_MS = 60_000;
const END_TIMEOUT_MS = 10_000;
const FORCED_END_TIMEOUT_MS = 3_000;

interface SessionLinks {
  id: string;
  url: string | undefined;
  debugUrl: string | undefined;
}

export class RemoteEngine implements Engine {
  readonly operations: Operations;
  private session: SessionLinks | undefined;
  private browser: LocalEngine | undefined;
  private pages: Context | undefined;
  /** The session was started by this client (not resumed): a failed init ends it. */
  private started = false;
  private closed = false;

  constructor(
    private readonly parts: EngineParts,
    private readonly http: ServiceHttp,
    settings: RemoteSettings,
  ) {
    const { options, logger, records } = parts;
    const context = () => {
      if (!this.pages) throw new ServiceError("The browser is not open: call init() first.");
      return this.pages;
    };
    const wire = new WireOperations(
      remoteTransport({
        http,
        sessionId: () => this.session?.id ?? "",
        serverCache: options.serverCache,
        model: settings.callModel,
      }),
      { logger, metrics: records.metrics },
    );
    this.operations = remoteOperations(
      wire,
      new LocalOperations(options, logger, records.metrics, context),
    );
  }

  /** A remote browser is reached again by its session id, never by its CDP address. */
  readonly connectURL = undefined;
  readonly browserPid = undefined;
  readonly browserFolder = undefined;
  readonly cdpHub = undefined;

  get sessionId(): string | undefined {
    return this.session?.id;
  }
  get sessionUrl(): string | undefined {
    return this.session?.url;
  }
  get debugUrl(): string | undefined {
    return this.session?.debugUrl;
  }

  init(): Promise<Context> {
    return withTimeout("init", INIT_TIMEOUT_MS, "the remote session to start and attach", (d) =>
      this.start(d.signal),
    ).catch(async (error: unknown) => {
      await this.abandon();
      throw error;
    });
  }

  async close({ force }: { force: boolean }): Promise<void> {
    this.closed = true;
    await this.browser?.close({ force: true }).catch(() => {});
    const session = this.session;
    if (!session) return;
    if (this.parts.options.keepAlive) {
      this.parts.logger.info("client", "left the remote session running (keepAlive)", {
        browserbaseSessionID: session.id,
      });
      return;
    }
    await this.end(session.id, force);
  }

  private async start(signal: AbortSignal): Promise<Context> {
    const { options, logger } = this.parts;
    const resume = options.browserbaseSessionID;
    if (resume) {
      const debug = await this.describe(resume, signal);
      this.session = { id: resume, url: debug.url, debugUrl: debug.url };
    } else {
      const data = (await this.http.json("POST", "/sessions/start", startBody(options), {
        signal,
      })) as { sessionId?: unknown; sessionUrl?: unknown; debugUrl?: unknown };
      if (typeof data?.sessionId !== "string" || !data.sessionId) {
        throw new ServiceError("The service started no session: its answer had no sessionId.");
      }
      this.started = true;
      this.session = {
        id: data.sessionId,
        url: typeof data.sessionUrl === "string" ? data.sessionUrl : undefined,
        debugUrl: typeof data.debugUrl === "string" ? data.debugUrl : undefined,
      };
    }
    const id = this.session.id;
    if (this.closed) throw new ServiceError("close() was called before the session was ready");
    const info = (await this.platform(
      "GET",
      `/sessions/${encodeURIComponent(id)}`,
      id,
      signal,
    )) as {
      connectUrl?: unknown;
    };
    if (typeof info?.connectUrl !== "string") {
      throw new ServiceError(`The service gave no connectUrl for session ${id}.`);
    }
    // The URL's token opens the browser: it is never written anywhere.
    for (const value of new URL(info.connectUrl).searchParams.values()) logger.redactor.add(value);
    logger.info("client", resume ? "resumed the remote session" : "started a remote session", {
      browserbaseSessionID: id,
    });
    this.browser = new LocalEngine(
      {
        launch: LocalBrowserLaunchOptionsSchema.parse({ cdpUrl: info.connectUrl }),
        profile: launchProfile(),
        // Ours is only a connection: the session's end is the service's (close() asks for it).
        keepAlive: true,
        quietDetach: true,
        launchTimeoutMs: INIT_TIMEOUT_MS,
        logger,
        // One side settles dialogs: the service by its policy, or this side by the caller's
        // handler (the service was told to leave them, in /start).
        context: {
          dialogs:
            typeof options.dialogs === "function"
              ? options.dialogs
              : { settledElsewhere: options.dialogs },
          hooks: this.parts.hooks,
        },
      },
      () => this.operations,
    );
    this.pages = await this.browser.init();
    if (this.closed) throw new ServiceError("close() was called before the session was ready");
    return this.pages;
  }

  /** The session's dashboard link, read from its debug route (when resuming). */
  private async describe(id: string, signal: AbortSignal): Promise<{ url: string | undefined }> {
    const debug = (await this.platform(
      "GET",
      `/sessions/${encodeURIComponent(id)}/debug`,
      id,
      signal,
    )) as { debuggerUrl?: unknown };
    return { url: typeof debug?.debuggerUrl === "string" ? debug.debuggerUrl : undefined };
  }

  /**
   * A platform route: its answer is the object itself (as the platform API answers), not an
   * envelope. An unknown session is BrowserbaseSessionNotFoundError.
   */
  private async platform(method: "GET", path: string, id: string, signal: AbortSignal) {
    try {
      return await this.http.plain(method, path, { signal });
    } catch (error) {
      if (error instanceof ServiceAnswerError && error.status === 404) {
        throw new BrowserbaseSessionNotFoundError(id, { cause: error });
      }
      throw error;
    }
  }

  private async end(id: string, force: boolean): Promise<void> {
    try {
      await this.http.json(
        "POST",
        `/sessions/${encodeURIComponent(id)}/end`,
        {},
        {
          // A forced close is the job out of time: its reserve (5 s) must also carry the answer.
          timeoutMs: force ? FORCED_END_TIMEOUT_MS : END_TIMEOUT_MS,
        },
      );
    } catch (error) {
      // Already gone is what was asked for; anything else is said, and close() still returns.
      if (error instanceof ServiceAnswerError && error.status === 404) return;
      this.parts.logger.warn("client", "the service did not confirm the session's end", {
        browserbaseSessionID: id,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** After a failed init: our connection let go, and a session we started ended. */
  private async abandon(): Promise<void> {
    await this.browser?.close({ force: true }).catch(() => {});
    const session = this.session;
    if (session && this.started && !this.parts.options.keepAlive) await this.end(session.id, true);
  }
}
