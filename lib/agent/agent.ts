/**
 * One agent run on this machine's browser: the navigation guard, the first screen, the loop,
 * and the clean-up. The client's agent handle (lib/operations/agentHandle.ts) calls it through
 * the engine with a parsed request; streaming and library-only options are the handle's.
 */
import type { AgentExecuteRequest, AgentStep } from "../api/operations.js";
import type { Context } from "../browser/context.js";
import { guardNavigations, navigationRefusal } from "../browser/navigationPolicy.js";
import { NO_TABS } from "../browser/newTabs.js";
import type { Page } from "../browser/page.js";
import type { AgentControl } from "../engine/engine.js";
import type { ActSettings } from "../handlers/act.js";
import { activePageOf, pageById } from "../handlers/pageSnapshot.js";
import type { Logger } from "../log.js";
import type { ModelClient, Models } from "../model/modelClient.js";
import type { AgentResult, Variables } from "../options.js";
import { sleep, withTimeout } from "../timeout.js";
import { hideVariables, originOf } from "../variables.js";
import type { ResolvedAgentConfig } from "./agentConfig.js";
import { pointAt, removeCursor } from "./cursor.js";
import { DEFAULT_MAX_CONSECUTIVE_FAILURES } from "./guardrails.js";
import { runLoop } from "./loop.js";
import { captureMasked } from "./maskedCapture.js";
import { pageState } from "./pageOutline.js";
import { Recording } from "./recording.js";
import { screenFor } from "./screen.js";
import { agentSystemPrompt, taskMessage } from "./systemPrompt.js";
import type { AgentRun } from "./tools/defineTool.js";
import { toolsFor } from "./tools/index.js";
import { type SearchBackend, searchBackendFromEnv } from "./webSearch.js";

export interface AgentDeps {
  /** The client's pages; throws when the client is not ready. */
  context(): Context;
  models: ModelClient;
  /** Snapshot settings and selfHeal, as the client's own act/extract use them. */
  actSettings: Omit<ActSettings, "models" | "onTarget">;
  logger: Logger;
  /** Values a run types are hidden in every later outline of the client. */
  rememberVariables(variables: Variables): void;
  /** Values typed before the run (by act, or an earlier run): hidden from its start. */
  typedVariables(): Variables;
  env?: NodeJS.ProcessEnv;
}

/** A run's result; with `shouldCache`, its replayable steps when it can be replayed. */
export interface AgentRunOutcome {
  result: AgentResult;
  /** The URL of the page the run started on (what a cache keys on). */
  startUrl: string;
  steps?: AgentStep[];
}

/** One run, as the local engine performs it: the request is parsed, the page is named by id. */
export async function runAgent(
  config: ResolvedAgentConfig,
  deps: AgentDeps,
  request: Pick<AgentExecuteRequest, "executeOptions" | "frameId" | "shouldCache">,
  control: AgentControl,
): Promise<AgentRunOutcome> {
  const { logger } = deps;
  const options = request.executeOptions;
  const context = deps.context();
  const search = options.useSearch ? searchBackendFromEnv(deps.env) : undefined;
  for (const secret of search?.secrets ?? []) logger.redactor.add(secret);
  if (request.frameId !== undefined)
    context.setActivePage(await pageById(context, request.frameId));
  const models = deps.models.scoped({ operation: "agent" });
  const page = () => activePageOf(context);
  const used: Variables = { ...deps.typedVariables() };
  // Coordinates cannot be replayed: only dom runs record their steps.
  const recording = request.shouldCache && config.mode === "dom" ? new Recording() : undefined;
  const run = newRun(config, deps, context, page, models, options, control, used, search);
  run.recording = recording !== undefined;
  const start = page();
  const startUrl = start.url();
  let unguardNavigations: (() => Promise<void>) | undefined;
  try {
    unguardNavigations = await guardRun(run);
    run.newTabs = await context.newTabs();
    const title = await start.playwrightPage.title().catch(() => "");
    logger.info("agent", "run started", {
      instruction: options.instruction,
      maxSteps: options.maxSteps,
    });
    const cua = config.mode === "cua";
    const screen = cua ? await captureMasked(start.playwrightPage, options.variables) : undefined;
    run.screens.latest = screen?.screen;
    const result = await runLoop({
      screenshot: screen?.image,
      // Declared as the latest screenshot's size: the points come back in it.
      computerScreen: cua
        ? async () => run.screens.latest ?? (await screenFor(page().playwrightPage))
        : undefined,
      task: hideVariables(
        logger.redactor.text(
          taskMessage(options.instruction, { url: start.url(), title }, options.variables),
        ),
        used,
      ),
      system: agentSystemPrompt(config.mode, config.systemPrompt),
      maxSteps: options.maxSteps,
      toolTimeout: options.toolTimeout,
      signal: control.signal,
      model: config.model,
      models,
      tools: toolsFor({ mode: config.mode, useSearch: search !== undefined }),
      run,
      // Values typed so far: hidden wherever they show up again (a value never typed cannot).
      variables: used,
      redactor: logger.redactor,
      emit: (event) => control.onEvent?.(event),
      recording,
      pageState: () => readStateFor(run),
      maxConsecutiveFailures: options.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES,
    });
    logger.info("agent", "run finished", {
      success: result.success,
      completed: result.completed,
      steps: result.metadata?.steps,
    });
    const replayable = result.success && result.completed ? recording?.result() : undefined;
    return { result, startUrl, steps: replayable };
  } catch (error) {
    throw logger.redactor.error(error);
  } finally {
    await unguardNavigations?.();
    if (options.highlightCursor) {
      // Bounded: a page that stopped answering must not hold the result back.
      const removal = Promise.all(context.pages().map((p) => removeCursor(p)));
      await Promise.race([removal, sleep(2_000)]);
    }
  }
}

/**
 * Every document the run loads passes the navigation-safety rule: goto's URL, redirects, links
 * act clicks and navigations the page starts; the model is told of each refusal. Answers the
 * guard's removal.
 */
export async function guardRun(run: AgentRun): Promise<(() => Promise<void>) | undefined> {
  const browser = run.context.playwrightContext.browser();
  return browser
    ? await guardNavigations(
        browser,
        (url) => navigationRefusal(url, run.navigation),
        (url, reason) => run.refused.push(`${url} (${reason})`),
      )
    : undefined;
}

/**
 * The page as the loop check compares it, read only for a call made before. Bounded, and with
 * little settling: a page that cannot be read in time is taken as changed (no false loop).
 */
function readStateFor(run: AgentRun): Promise<string | undefined> {
  const quick = {
    ...run,
    actSettings: {
      ...run.actSettings,
      domSettleTimeout: Math.min(1_000, run.actSettings.domSettleTimeout),
    },
  };
  return withTimeout("agent", 5_000, "the page, to compare it with before a repeated call", (d) =>
    pageState(quick, d),
  ).catch(() => undefined);
}

/** The origin of the page a run begins on ("null" when there is none, or no web page). */
function startOrigin(page: () => Page): string {
  try {
    return originOf(page().url());
  } catch {
    return "null";
  }
}

export function newRun(
  config: ResolvedAgentConfig,
  deps: AgentDeps,
  context: Context,
  page: () => Page,
  models: Models,
  options: AgentExecuteRequest["executeOptions"],
  control: AgentControl,
  used: Variables,
  search: SearchBackend | undefined,
): AgentRun {
  return {
    context,
    page,
    actSettings: {
      ...deps.actSettings,
      models,
      onTarget: options.highlightCursor ? pointAt : undefined,
      onVariablesUsed: (typed) => {
        Object.assign(used, typed);
        deps.rememberVariables(typed);
      },
    },
    executionModel: config.executionModel,
    variables: options.variables,
    start: { origin: startOrigin(page) },
    navigation: {},
    refused: [],
    search,
    stop: control.signal,
    pointer: { at: { x: 0, y: 0 } },
    screens: { latest: undefined },
    seen: { outline: undefined, forIds: undefined },
    highlightCursor: options.highlightCursor === true,
    onSafetyCheck: control.onSafetyCheck,
    newTabs: NO_TABS,
    recording: false,
    logger: deps.logger,
  };
}
