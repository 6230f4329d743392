/**
 * The host of `npm run mcp`: one browser for the one client, chosen by the options' env (LOCAL
 * here, or a Wayfarer service's session for REMOTE), launched by the first tool call so that
 * listing the tools starts nothing. A browser that ended under the session (a crash, a closed
 * window) is started again by the next call; the session's notice tells the model so. So is
 * one ended after `idleMs` without a call: a client keeps its server running between chats, and
 * an idle browser (with REMOTE, a session of the project's) would be held for days.
 */
import type { Context } from "../browser/context.js";
import type { Engine } from "../engine/engine.js";
import { loggedPageHooks } from "../engine/pageHooks.js";
import { createEngine } from "../engine/select.js";
import { agentDepsFor } from "../engine/toolDeps.js";
import { ServiceError, ServiceInitError } from "../errors.js";
import type { Logger } from "../log.js";
import { MetricsRecorder } from "../metrics.js";
import { checkEnvironment } from "../optionChecks.js";
import { parseInput, type V3Options, V3OptionsSchema } from "../options.js";
import { rawDetail, readableReason } from "../readableError.js";
import { secretsOf } from "../secrets.js";
import { awaitAtMost, untilAborted } from "../timeout.js";
import type { HostBrowser, McpHost } from "./host.js";
import { DEFAULT_MAX_PAGES } from "./settings.js";

/** A graceful close gets this long before the browser is ended outright. */
const GRACEFUL_CLOSE_MS = 1_000;
/** What sets the page cap, as its errors and log lines name it. */
const MAX_PAGES_SETTING = "WAYFARER_MCP_MAX_PAGES";

interface Open {
  engine: Engine;
  browser: HostBrowser;
}

export function localHost(o: {
  options: V3Options;
  logger: Logger;
  idleMs?: number;
  /** Pages the local browser may have open at once (WAYFARER_MCP_MAX_PAGES; unset: its default). */
  maxPages?: number;
}): McpHost {
  const { logger } = o;
  // Environment errors (a missing key for REMOTE, a bad option) stop the server at its start.
  checkEnvironment(o.options);
  const options = parseInput(V3OptionsSchema, o.options, "the MCP server's options");
  for (const secret of secretsOf(options)) logger.redactor.add(secret);
  const metrics = new MetricsRecorder();
  let open: Open | undefined;
  let starting: Promise<HostBrowser> | undefined;
  let closing: Promise<void> | undefined;
  let calls = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  /** Ends the open browser once no call has come for idleMs. */
  function armIdle(): void {
    clearTimeout(idleTimer);
    if (!o.idleMs || calls > 0 || !open) return;
    idleTimer = setTimeout(() => {
      if (calls > 0 || !open || closing) return;
      const idle = open;
      open = undefined;
      logger.info("mcp", "ended the browser after a time without calls", { idleMs: o.idleMs });
      void endGently(idle.engine).catch(() => {});
    }, o.idleMs).unref();
  }

  async function start(): Promise<HostBrowser> {
    // A service's browser (REMOTE) is capped by that service.
    const limit = options.env === "LOCAL" ? (o.maxPages ?? DEFAULT_MAX_PAGES) : undefined;
    const engine = createEngine({
      options,
      logger,
      hooks: loggedPageHooks(logger),
      records: { metrics },
      // CDP over a pipe, as a service's session: its hub counts the pages the browser makes.
      ...(limit ? { pageLimit: { max: limit, setBy: MAX_PAGES_SETTING }, confine: {} } : {}),
    });
    let context: Context;
    try {
      context = await engine.init();
      if (limit) await capPages(engine, limit, logger);
    } catch (error) {
      await engine.close({ force: true }).catch(() => {});
      const cause = logger.redactor.error(error);
      logger.debug("mcp", "the browser did not start", { detail: rawDetail(cause) });
      throw new ServiceInitError(readableReason(cause), { cause });
    }
    if (closing) {
      await engine.close({ force: true });
      throw new ServiceError("The MCP server is closing: its browser was ended.");
    }
    // A page made its browser send what the hub cannot take: that browser is ended (not this
    // process), and the next call starts another.
    engine.cdpHub?.onBreach((reason) => logger.error("mcp", `the browser was ended: ${reason}`));
    const deps = agentDepsFor(options, logger, metrics, () => context);
    open = { engine, browser: { context, operations: engine.operations, deps } };
    logger.info("mcp", "browser ready", { pid: engine.browserPid, session: engine.sessionId });
    return open.browser;
  }

  async function browser(): Promise<HostBrowser> {
    if (closing) throw new ServiceError("The MCP server is closing: no more calls.");
    if (open && connected(open.browser.context)) {
      // The last tab closed (a page's window.close()): a blank one to go on with.
      if (!open.browser.context.pages().length) await open.browser.context.newPage();
      return open.browser;
    }
    if (open) {
      logger.info("mcp", "the browser ended; starting another");
      const ended = open;
      open = undefined;
      await ended.engine.close({ force: true }).catch(() => {});
    }
    starting ??= start().finally(() => {
      starting = undefined;
    });
    return starting;
  }

  return {
    hasModel: options.model !== undefined || options.llmClient !== undefined,
    async around(_tool, work, signal) {
      calls++;
      clearTimeout(idleTimer);
      try {
        // A launch the client gave up on still finishes, for the next call.
        return await work(await untilAborted(browser(), signal));
      } finally {
        calls--;
        armIdle();
      }
    },
    close() {
      closing ??= (async () => {
        clearTimeout(idleTimer);
        await starting?.catch(() => {});
        const engine = open?.engine;
        open = undefined;
        if (engine) await endGently(engine);
      })();
      return closing;
    },
  };
}

/**
 * Pages past `max`, whoever opens them (a page's window.open, a link to a new tab), are closed
 * by the browser's hub as they are made: a page opening a thousand windows leaves the browser
 * free to answer. The page sees a window that closed at once; the model a tab list as it was.
 */
async function capPages(engine: Engine, max: number, logger: Logger): Promise<void> {
  if (!engine.cdpHub) throw new ServiceError("The browser has no CDP hub to cap its pages with.");
  await engine.cdpHub.capPages(max, (url) =>
    logger.warn(
      "context",
      `closed a new page: ${max} pages are open, the most this browser may have (${MAX_PAGES_SETTING})`,
      { url },
    ),
  );
}

async function endGently(engine: Engine): Promise<void> {
  if (!(await awaitAtMost(engine.close({ force: false }), GRACEFUL_CLOSE_MS))) {
    await engine.close({ force: true });
  }
}

function connected(context: Context): boolean {
  return context.playwrightContext.browser()?.isConnected() ?? true;
}
