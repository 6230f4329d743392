/**
 * The agent run an MCP session keeps for its whole life. The calling model is the agent here:
 * each tool call is one step of a run that never ends, so the agent's own page tools work
 * unchanged. The latest outline and its ids carry from call to call, an outline the model
 * already has is answered in one line, and typing a variable is checked against its origins.
 */
import { guardRun, newRun } from "../agent/agent.js";
import type { AgentRun, ToolOutput } from "../agent/tools/defineTool.js";
import { activePageOf } from "../handlers/pageSnapshot.js";
import { awaitAtMost, type Deadline, withTimeout } from "../timeout.js";
import type { HostBrowser, McpOptions } from "./host.js";
import type { ToolCall } from "./tools/index.js";
import { variablesAt } from "./variables.js";

/** A tool past its time is still ending its work: the next call waits this long for it. */
const SETTLE_AFTER_MS = 5_000;

/**
 * The origin a run may type its variables on besides theirs: none. An agent run takes the page
 * it starts on (or the first it goes to) as that origin; a session has no task page, and the
 * first URL the model opened must not become a place for the values.
 */
const NO_START_ORIGIN = {
  get origin() {
    return "null";
  },
  set origin(_ignored: string) {},
};

/** What the server knows of a call besides the browser: its tool, the client's cancel, progress. */
export interface CallInfo {
  tool: string;
  signal: AbortSignal;
  progress: ToolCall["progress"];
  checkUrl: (url: string) => Promise<void>;
}

export class McpSession {
  private run: AgentRun | undefined;
  private unguard: (() => Promise<void>) | undefined;
  /** Said once, with the next answer: the browser of the run was replaced. */
  private notice: string | undefined;

  constructor(private readonly options: McpOptions) {}

  /** What a tool's handler gets for one call on `browser`. */
  toolCall(browser: HostBrowser, info: CallInfo): ToolCall {
    const { tool, signal } = info;
    return {
      browser,
      options: this.options,
      signal,
      agentTool: (agentTool, input) =>
        this.perform(browser, tool, signal, (run, deadline) => {
          // The MCP schema was checked; the agent tool's own one gives its defaults.
          const parsed = agentTool.inputSchema.parse(input);
          return agentTool.execute(parsed, run, deadline);
        }),
      onRun: (work) => this.perform(browser, tool, signal, work),
      forgetOutline: () => {
        // The capture stays: the model's outline is forgotten, not the page's.
        if (this.run) {
          this.run.seen = { outline: undefined, forIds: undefined, capture: this.run.seen.capture };
        }
      },
      variablesAt: (url) => variablesAt(this.options.variables, url),
      checkUrl: info.checkUrl,
      progress: info.progress,
    };
  }

  /** The notice for the next answer, once. */
  takeNotice(): string | undefined {
    const notice = this.notice;
    this.notice = undefined;
    return notice;
  }

  async close(): Promise<void> {
    await this.unguard?.();
    this.unguard = undefined;
    this.run = undefined;
  }

  /**
   * One step of the run: the ids it names are those of the latest outline, the tool has its
   * time, and navigations the safety rule refused meanwhile are told with its answer.
   */
  private async perform(
    browser: HostBrowser,
    tool: string,
    signal: AbortSignal,
    work: (run: AgentRun, deadline: Deadline) => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const run = await this.runOn(browser);
    run.seen.forIds = run.seen.outline;
    run.refused.length = 0;
    run.stop = signal;
    let inner: Promise<ToolOutput> | undefined;
    try {
      const output = await withTimeout(
        tool,
        this.options.toolTimeoutMs,
        `the ${tool} tool to finish`,
        (deadline) => {
          inner = work(run, deadline);
          return inner;
        },
        { signal },
      );
      const refused = run.refused.splice(0);
      if (refused.length) {
        output.text += `\nNavigation refused by the safety rule: ${refused.join("; ")}`;
      }
      return output;
    } catch (error) {
      const refused = run.refused.splice(0);
      if (refused.length && error instanceof Error) {
        error.message += ` Navigation refused by the safety rule: ${refused.join("; ")}`;
      }
      throw error;
    } finally {
      // Past its time (or cancelled), the tool's work may still be ending: the next call
      // must not meet it on the page.
      if (inner) await awaitAtMost(inner, SETTLE_AFTER_MS);
    }
  }

  /** The run on this browser: made on the first call, and again for a browser that replaced it. */
  private async runOn(browser: HostBrowser): Promise<AgentRun> {
    if (this.run && this.run.context === browser.context) return this.run;
    if (this.run) {
      await this.unguard?.();
      this.notice =
        "A new browser was started (the one before had ended): its pages and the ids read on them are gone.";
    }
    const run = this.newRunOn(browser);
    this.unguard = await guardRun(run);
    run.newTabs = await browser.context.newTabs();
    this.run = run;
    return run;
  }

  private newRunOn({ context, deps }: HostBrowser): AgentRun {
    const page = () => activePageOf(context);
    const run = newRun(
      {
        mode: "dom",
        model: undefined,
        executionModel: undefined,
        systemPrompt: undefined,
        stream: false,
      },
      deps,
      context,
      page,
      // Page tools act on ids with no model; only fill_form's fields named in words ask one.
      deps.models.scoped({ operation: "act" }),
      {
        instruction: "MCP session",
        maxSteps: 1,
        toolTimeout: this.options.toolTimeoutMs,
        variables: this.options.variables,
      },
      {},
      { ...deps.typedVariables() },
      undefined,
    );
    run.start = NO_START_ORIGIN;
    return run;
  }
}
