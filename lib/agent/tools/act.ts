import { z } from "zod";
import { act } from "../../handlers/act.js";
import { elementStep } from "../recording.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "act",
  description:
    "Do one thing on one element of the page: click, type into a field, choose an option, press a key in a field. Say which element by what a user sees.",
  unreplayableOnError: true,
  inputSchema: z.object({
    action: z
      .string()
      .min(1)
      .describe(
        'One action on one element, e.g. "click the Search button", "type %email% into the Email field", "select Large in the Size dropdown". Use a %name% token for a variable\'s value.',
      ),
  }),
  async execute({ action }, run, deadline) {
    const result = await act(
      run.context,
      run.page(),
      action,
      { model: run.executionModel, variables: run.variables },
      run.actSettings,
      deadline,
      { identify: run.recording, startOrigin: run.start.origin },
    );
    // act waited for a tab its click opened: that is the page now.
    const page = run.page();
    return {
      text: `${result.success ? "Done" : "Failed"}: ${result.message}. The page is now ${page.url()}`,
      action: {
        instruction: action,
        action: result.actionDescription,
        success: result.success,
        pageUrl: page.url(),
      },
      replay: run.recording ? elementStep(action, result) : undefined,
    };
  },
});
