import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "think",
  readOnly: true,
  description: "Write down a plan (after a failure, say); changes nothing.",
  inputSchema: z.object({
    thought: z.string().min(1),
  }),
  async execute({ thought }) {
    return { text: "Noted.", action: { reasoning: thought } };
  },
});
