/**
 * The one registry of the agent's tools: which a run offers, by mode and options.
 */
import act from "./act.js";
import back from "./back.js";
import type { AgentTool } from "./defineTool.js";
import done from "./done.js";
import extract from "./extract.js";
import fillForm from "./fillForm.js";
import goto from "./goto.js";
import keys from "./keys.js";
import outline from "./outline.js";
import screenshot from "./screenshot.js";
import scroll from "./scroll.js";
import search from "./search.js";
import think from "./think.js";
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

export function toolsFor(options: { useSearch: boolean }): AgentTool[] {
  return options.useSearch ? [...DOM_TOOLS, search] : DOM_TOOLS;
}
