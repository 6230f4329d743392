/**
 * The one registry of the agent's tools: which a run offers, by mode and options.
 */
import type { AgentStep } from "../../api/operations.js";
import type { AgentMode } from "../../options.js";
import act from "./act.js";
import back from "./back.js";
import clickAt from "./clickAt.js";
import computer from "./computer.js";
import type { AgentTool } from "./defineTool.js";
import done from "./done.js";
import doubleClickAt from "./doubleClickAt.js";
import dragAt from "./dragAt.js";
import extract from "./extract.js";
import fillForm from "./fillForm.js";
import fillFormAt from "./fillFormAt.js";
import goto from "./goto.js";
import holdAt from "./holdAt.js";
import keys from "./keys.js";
import outline from "./outline.js";
import screenshot from "./screenshot.js";
import scroll from "./scroll.js";
import scrollAt from "./scrollAt.js";
import search from "./search.js";
import think from "./think.js";
import typeAt from "./typeAt.js";
import wait from "./wait.js";

const DOM_TOOLS = [
  act,
  fillForm,
  extract,
  outline,
  goto,
  back,
  scroll,
  keys,
  wait,
  screenshot,
  think,
  done,
];

/** Acting by points of a screenshot, for hybrid mode. */
const COORDINATE_TOOLS = [clickAt, doubleClickAt, typeAt, dragAt, scrollAt, holdAt, fillFormAt];

export function toolsFor(options: { mode: AgentMode; useSearch: boolean }): AgentTool[] {
  // cua: the provider's computer tool alone; the model drives the screen its own way.
  if (options.mode === "cua") return [computer];
  const tools = options.mode === "hybrid" ? [...DOM_TOOLS, ...COORDINATE_TOOLS] : DOM_TOOLS;
  return options.useSearch ? [...tools, search] : tools;
}

/** The page tools a cached run's replay calls again with the input the model gave them. */
export const REPLAYED_TOOLS: Record<Exclude<AgentStep["tool"], "act">, AgentTool> = {
  goto,
  back,
  scroll,
  keys,
  wait,
};
