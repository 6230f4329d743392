import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "think",
  description:
    "Write down a plan or reasoning before acting, e.g. after a failure. Changes nothing on the page.",
  inputSchema: z.object({
    thought: z.string().min(1).describe("The reasoning or plan"),
  }),
  async execute({ thought }) {
    return { text: "Noted.", action: { reasoning: thought } };
  },
});
