/**
 * What the tools that act on an element by its `[id]` share: the id field, and the agent's act
 * tool doing it (the element checked to be the one the outline showed, no model call, the page's
 * outline after it in the answer).
 */
import { z } from "zod";
import type { ID_METHODS } from "../../agent/tools/act.js";
import act from "../../agent/tools/act.js";
import { fromOutput, type ToolAnswer } from "../results.js";
import type { ToolCall } from "./index.js";

export const ElementId = z.coerce
  .string()
  .min(1)
  .describe("The element's [id] in the latest outline (from read, or an action's answer)");

export async function actById(
  call: ToolCall,
  id: string,
  method: (typeof ID_METHODS)[number],
  value?: string,
): Promise<ToolAnswer> {
  return fromOutput(await call.agentTool(act, { id, method, value }));
}
