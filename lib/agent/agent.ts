/**
 * client.agent(config) → Agent; agent.execute(instruction | options) runs the task to the end
 * and answers the result, or with `stream: true` answers `{ fullStream, result }` at once.
 */
import type { z } from "zod";
import type { Context } from "../browser/context.js";
import { guardNavigations, navigationRefusal } from "../browser/navigationPolicy.js";
import { NO_TABS } from "../browser/newTabs.js";
import type { Page } from "../browser/page.js";
import type { ActSettings } from "../handlers/act.js";
import { pageFor } from "../handlers/pageSnapshot.js";
import type { Logger } from "../log.js";
import type { ModelClient, Models } from "../model/modelClient.js";
import {
  type AgentExecuteOptions,
  AgentExecuteOptionsSchema,
  type AgentResult,
  parseInput,
  type Variables,
} from "../options.js";
import { sleep } from "../timeout.js";
import { hideVariables } from "../variables.js";
import type { ResolvedAgentConfig } from "./agentConfig.js";
import { pointAt, removeCursor } from "./cursor.js";
import { type AgentEvent, EventChannel } from "./events.js";
import { runLoop } from "./loop.js";
import { captureMasked } from "./maskedCapture.js";
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
  actSettings: Omit<ActSettings, "models" | "record" | "onTarget">;
  logger: Logger;
  /** Values a run types are hidden in every later outline of the client. */
  rememberVariables(variables: Variables): void;
  /** Values typed before the run (by act, or an earlier run): hidden from its start. */
  typedVariables(): Variables;
  env?: NodeJS.ProcessEnv;
}

export interface AgentStream {
  /** The run's events as they happen, ending with `finish` (or `error`). */
  fullStream: AsyncIterable<AgentEvent>;
  result: Promise<AgentResult>;
}

export type AgentExecuteInput = string | AgentExecuteOptions;

export class Agent<Streaming extends boolean = false> {
  constructor(
    private readonly config: ResolvedAgentConfig,
    private readonly deps: AgentDeps,
  ) {}

  execute(input: AgentExecuteInput): Streaming extends true ? AgentStream : Promise<AgentResult> {
    if (!this.config.stream) return this.run(input, () => {}) as never;
    const channel = new EventChannel<AgentEvent>();
    const result = this.run(input, (e) => channel.push(e)).then(
      (r) => {
        channel.push({ type: "finish", result: r });
        channel.end();
        return r;
      },
      (error: unknown) => {
        channel.push({
          type: "error",
          error: error instanceof Error ? error.message : String(error),
        });
        channel.end();
        throw error;
      },
    );
    // A caller reading only the stream learns of a failure there: no unhandled rejection.
    result.catch(() => {});
    return { fullStream: channel, result } as never;
  }

  private async run(
    input: AgentExecuteInput,
    emit: (event: AgentEvent) => void,
  ): Promise<AgentResult> {
    const { logger } = this.deps;
    const options = parseInput(
      AgentExecuteOptionsSchema,
      typeof input === "string" ? { instruction: input } : input,
      "agent.execute",
    );
    const context = this.deps.context();
    const search = options.useSearch ? searchBackendFromEnv(this.deps.env) : undefined;
    for (const secret of search?.secrets ?? []) logger.redactor.add(secret);
    if (options.page) context.setActivePage(pageFor(context, options.page));
    const models = this.deps.models.scoped({ operation: "agent" });
    const page = () => pageFor(context, undefined);
    const used: Variables = { ...this.deps.typedVariables() };
    const run = this.newRun(context, page, models, options, used, search);
    const start = page();
    let unguardNavigations: (() => Promise<void>) | undefined;
    try {
      // Every document the run loads passes the navigation-safety rule: goto's URL, redirects,
      // links act clicks and navigations the page starts; the model is told of each refusal.
      const browser = context.playwrightContext.browser();
      unguardNavigations = browser
        ? await guardNavigations(
            browser,
            (url) => navigationRefusal(url, run.navigation),
            (url, reason) => run.refused.push(`${url} (${reason})`),
          )
        : undefined;
      run.newTabs = await context.newTabs();
      const title = await start.playwrightPage.title().catch(() => "");
      logger.info("agent", "run started", {
        instruction: options.instruction,
        maxSteps: options.maxSteps,
      });
      const cua = this.config.mode === "cua";
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
        system: agentSystemPrompt(this.config.mode, this.config.systemPrompt),
        maxSteps: options.maxSteps,
        toolTimeout: options.toolTimeout,
        signal: options.signal,
        model: this.config.model,
        models,
        tools: toolsFor({ mode: this.config.mode, useSearch: search !== undefined }),
        run,
        // Values typed so far: hidden wherever they show up again (a value never typed cannot).
        variables: used,
        redactor: logger.redactor,
        emit,
      });
      logger.info("agent", "run finished", {
        success: result.success,
        completed: result.completed,
        steps: result.metadata?.steps,
      });
      return result;
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

  /** What every tool of one run works with. */
  private newRun(
    context: Context,
    page: () => Page,
    models: Models,
    options: z.output<typeof AgentExecuteOptionsSchema>,
    used: Variables,
    search: SearchBackend | undefined,
  ): AgentRun {
    return {
      context,
      page,
      actSettings: {
        ...this.deps.actSettings,
        models,
        // The agent's steps are its result's actions, not history entries.
        record: () => {},
        onTarget: options.highlightCursor ? pointAt : undefined,
        onVariablesUsed: (typed) => {
          Object.assign(used, typed);
          this.deps.rememberVariables(typed);
        },
      },
      executionModel: this.config.executionModel,
      variables: options.variables,
      navigation: {},
      refused: [],
      search,
      stop: options.signal,
      pointer: { at: { x: 0, y: 0 } },
      screens: { latest: undefined },
      highlightCursor: options.highlightCursor === true,
      onSafetyCheck: options.onSafetyCheck,
      newTabs: NO_TABS,
      logger: this.deps.logger,
    };
  }
}
