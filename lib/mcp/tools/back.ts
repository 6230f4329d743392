import { z } from "zod";
import { pageAfter } from "../../agent/pageOutline.js";
import back from "../../agent/tools/back.js";
import { textAnswer } from "../results.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({});

export default {
  name: "back",
  title: "Go back",
  description: "Go back one page, as the browser's Back button; answers with the outline there.",
  inputSchema,
  needsModel: false,
  annotations: { openWorldHint: true },
  async handle(_input, call) {
    const output = await call.onRun(async (run, deadline) => {
      const went = await back.execute({}, run, deadline);
      const { url: _, ...after } = await pageAfter(run, deadline, went.text);
      return after;
    });
    return textAnswer(output.text);
  },
} satisfies McpTool<typeof inputSchema>;
