/**
 * The one registry of the MCP tools, and what a tool is: data (name, description, a zod input
 * schema with every field `.describe()`d, since the calling model and the generated reference
 * read them) plus one handler. server.ts registers them; docs read them.
 */
import type { z } from "zod";
import type { AgentRun, AgentTool, ToolOutput } from "../../agent/tools/defineTool.js";
import type { Variables } from "../../options.js";
import type { Deadline } from "../../timeout.js";
import type { HostBrowser, McpOptions } from "../host.js";
import type { ToolAnswer } from "../results.js";
import act from "./act.js";
import agent from "./agent.js";
import back from "./back.js";
import click from "./click.js";
import extract from "./extract.js";
import fill from "./fill.js";
import fillForm from "./fillForm.js";
import hover from "./hover.js";
import observe from "./observe.js";
import open from "./open.js";
import press from "./press.js";
import read from "./read.js";
import screenshot from "./screenshot.js";
import scroll from "./scroll.js";
import select from "./select.js";
import tabs from "./tabs.js";
import type from "./type.js";

/** MCP's tool hints, for clients that ask before a call that changes something. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool's handler works with, for one call. */
export interface ToolCall {
  readonly browser: HostBrowser;
  readonly options: McpOptions;
  /** The client's cancel. */
  readonly signal: AbortSignal;
  /**
   * One of the agent's own tools on the session's run (its input parsed by the tool's schema),
   * under the tool timeout; navigations the safety rule refused meanwhile are told with it.
   */
  agentTool(tool: AgentTool, input: Record<string, unknown>): Promise<ToolOutput>;
  /** Other work on the session's run, the same way. */
  onRun(work: (run: AgentRun, deadline: Deadline) => Promise<ToolOutput>): Promise<ToolOutput>;
  /** The ids read so far name nothing any more (another tab): the next read shows all. */
  forgetOutline(): void;
  /** The variables the model tools may type on the page at `url` (its origin is one of theirs). */
  variablesAt(url: string): Variables;
  /** The host's own address rule (the service's), when it has one. */
  checkUrl(url: string): Promise<void>;
  /** Tells the client how far a long call is, when it asked to be told. */
  progress(progress: number, total: number | undefined, message: string): void;
}

export interface McpTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  inputSchema: S;
  /** Listed only when the host has a model. */
  needsModel: boolean;
  annotations: ToolAnnotations;
  /** May throw: the server answers a tool error with the readable message. */
  handle(input: z.output<S>, call: ToolCall): Promise<ToolAnswer>;
}

/** In the order a client lists them: reading and acting by id first, then the model's. */
export const MCP_TOOLS: readonly McpTool[] = [
  open,
  back,
  read,
  click,
  fill,
  type,
  select,
  press,
  hover,
  scroll,
  fillForm,
  screenshot,
  tabs,
  act,
  extract,
  observe,
  agent,
];
