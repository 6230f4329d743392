import { z } from "zod";
import { pageAfter } from "../../agent/pageOutline.js";
import scroll from "../../agent/tools/scroll.js";
import { textAnswer } from "../results.js";
import { actById, ElementId } from "./byId.js";
import type { McpTool } from "./index.js";

const inputSchema = z
  .object({
    direction: z.enum(["up", "down"]).default("down").describe("Which way to scroll the page"),
    screens: z.number().positive().max(10).default(0.8).describe("How far, in heights of the view"),
    id: ElementId.optional().describe(
      "A scrollable element to scroll instead of the page (its [id]), with percent",
    ),
    percent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .describe("With id: where to scroll that element to, 0 (top) to 100 (bottom)"),
  })
  .refine((input) => (input.id === undefined) === (input.percent === undefined), {
    error: "give id and percent together (an element scrolled to a place), or neither (the page)",
    path: ["percent"],
  });

export default {
  name: "scroll",
  title: "Scroll",
  description:
    "Scroll the page (or the scrollable area in the middle of the view) up or down, or a scrollable element to a percentage; answers with the outline after it (a long page's part now in view).",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle({ direction, screens, id, percent }, call) {
    if (id !== undefined) return actById(call, id, "scrollTo", `${percent}%`);
    const output = await call.onRun(async (run, deadline) => {
      const scrolled = await scroll.execute({ direction, screens }, run, deadline);
      const { url: _, ...after } = await pageAfter(run, deadline, `${scrolled.text}.`);
      return after;
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
