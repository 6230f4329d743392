import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "done",
  description:
    "Finish the task: call this once, when the task is done or cannot be done. The message is what the user reads.",
  inputSchema: z.object({
    success: z.boolean().describe("Whether the task was done"),
    message: z
      .string()
      .min(1)
      .describe("What was done, with the answer the task asked for; or why it could not be done"),
  }),
  async execute({ success, message }, run) {
    // Finishing needs no page: the last tab may have been closed.
    const pageUrl = run.context.activePage()?.url();
    return {
      text: "Finished.",
      action: { taskCompleted: success, action: message, pageUrl },
      finish: { success, message },
    };
  },
});
