/**
 * A tool of the agent is data plus one handler: a name, a description and a zod input schema
 * (every field `.describe()`d, because the model reads them), and `execute`. A tool that throws
 * does not end the run: the loop hands its error back to the model.
 */
import type { z } from "zod";
import type { AgentStep } from "../../api/operations.js";
import type { Context } from "../../browser/context.js";
import type { NavigationAllowance } from "../../browser/navigationPolicy.js";
import type { NewTabs } from "../../browser/newTabs.js";
import type { Page } from "../../browser/page.js";
import type { ActSettings } from "../../handlers/act.js";
import type { Logger } from "../../log.js";
import type { ModelConfiguration } from "../../model/config.js";
import type { AgentAction, SafetyCheck, Variables } from "../../options.js";
import type { Snapshot } from "../../snapshot/snapshot.js";
import type { Deadline } from "../../timeout.js";
import type { Pointer } from "../computerActions.js";
import type { SeenOutline } from "../pageOutline.js";
import type { Screen } from "../screen.js";
import type { SearchBackend } from "../webSearch.js";

/** What every tool of one run works with. */
export interface AgentRun {
  context: Context;
  /** The page the agent is on: the active page (a tab the page opens becomes it). */
  page(): Page;
  /** act/extract/observe settings: the agent's models (usage under agent), no history entries. */
  actSettings: ActSettings;
  executionModel: ModelConfiguration | undefined;
  variables: Variables | undefined;
  /**
   * The origin the run started on, where its variables may be typed (with those each names).
   * A holder: a run begun on about:blank takes the first origin it goes to.
   */
  start: { origin: string };
  navigation: NavigationAllowance;
  /** Navigations refused while a tool ran (URL and reason), told to the model with its result. */
  refused: string[];
  search: SearchBackend | undefined;
  /** Tabs an action opened: awaited before a tool reports where the page is. */
  newTabs: NewTabs;
  /**
   * The screen of the latest screenshot the model was shown: its points are in that one. A
   * holder, shared by every tool call of the run (each gets its own copy of the rest).
   */
  screens: { latest: Screen | undefined };
  /**
   * Outlines (a holder too): `outline`, the latest the model was shown or is about to be (in
   * this step's results); `forIds`, the one it had when it answered this step, which the ids it
   * names refer to (an earlier call of the same step may have read a newer one).
   */
  seen: {
    outline: SeenOutline | undefined;
    forIds: SeenOutline | undefined;
    /**
     * The capture the latest outline read is a part of (kept when the model's outline is
     * forgotten: another part of it is read from it while the page is unchanged).
     */
    capture?: { page: Page; snapshot: Snapshot };
  };
  /** Show the agent's cursor where it acts (highlightCursor). */
  highlightCursor: boolean;
  /** Where the mouse is, for computer-use actions that name no point. */
  pointer: Pointer;
  /** Asked before an action the provider raised safety checks for; no answer means no. */
  onSafetyCheck: ((checks: SafetyCheck[]) => boolean | Promise<boolean>) | undefined;
  /** The run records its steps for a replay (`shouldCache`): element actions read identities. */
  recording: boolean;
  /** The caller's signal: tools that only wait stop at it; others finish their step. */
  stop: AbortSignal | undefined;
  logger: Logger;
}

export interface ToolOutput {
  /** What the model reads back. */
  text: string;
  /** A PNG for the model to look at. */
  image?: Buffer;
  /** Fields of the AgentAction recorded for this call (type, timeMs and reasoning are added). */
  action?: Partial<AgentAction>;
  /** Set by done (or a refused safety check): the run ends with this. */
  finish?: {
    success: boolean;
    message: string;
    /** Whether the task came to an end (default true); false when the run was cut short. */
    completed?: boolean;
    stoppedBy?: string;
    metadata?: Record<string, unknown>;
  };
  /** The action failed, though the tool still answers (with a screenshot): recorded as an error. */
  failed?: string;
  /** The image goes inside the tool's result: where the computer-use protocols expect it. */
  imageInResult?: boolean;
  /** Sent back with the result for the provider: acknowledged safety checks, the page's URL. */
  resultMeta?: { acknowledgedSafetyChecks?: SafetyCheck[]; url?: string };
  /**
   * What a replay repeats of this call (tools that change the page): its steps; `null` when it
   * changed the page in a way no step can repeat. Absent for tools that only read.
   */
  replay?: AgentStep[] | null;
  /** A read-only tool found the page changed since the model last read it (the loop check). */
  sawChange?: boolean;
  /** Outlines and screenshots describe one moment: older ones are shortened in later steps. */
  perishable?: boolean;
  /** What a perishable result becomes once shortened (default: a line saying it was left out). */
  shortened?: string;
}

export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  inputSchema: S;
  execute(input: z.output<S>, run: AgentRun, deadline: Deadline): Promise<ToolOutput>;
  /**
   * A call of it that failed may still have changed the page (a load stopped part-way, keys
   * half sent, some fields of a form filled, a click past its time): a run with one cannot be
   * replayed.
   */
  unreplayableOnError?: boolean;
  /**
   * What it changes may show only in pixels (a canvas, the screen of a computer-use model): its
   * calls are not checked for loops, which compare the page's outline.
   */
  pixels?: boolean;
  /**
   * What the call acts on, when its input alone does not say (an id of an outline): the loop
   * check tells calls apart by it too.
   */
  loopKey?(input: unknown, run: AgentRun): string | undefined;
  /** It only reads: the page stays as it was (the loop check needs no look at it). */
  readOnly?: boolean;
  /** The input as results and events show it, when it carries protocol data of its own. */
  describeInput?(input: unknown): unknown;
}

export function defineTool<S extends z.ZodType>(tool: AgentTool<S>): AgentTool {
  return tool as unknown as AgentTool;
}
