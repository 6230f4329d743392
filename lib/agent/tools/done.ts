import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "done",
  description: "Finish, once: the task is done or cannot be done. The user reads the message.",
  inputSchema: z.object({
    success: z.boolean(),
    message: z
      .string()
      .min(1)
      .describe("The answer the task asked for, or why it could not be done"),
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
