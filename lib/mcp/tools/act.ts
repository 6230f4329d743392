import { z } from "zod";
import { activePageOf } from "../../handlers/pageSnapshot.js";
import { textAnswer } from "../results.js";
import { checkNamedHere } from "../variables.js";
import type { McpTool } from "./index.js";

const inputSchema = z.object({
  action: z
    .string()
    .trim()
    .min(1)
    .describe(
      'One action in words: "click the Sign in button", "type %email% into the email field"; %name% for a variable of the server',
    ),
});

export default {
  name: "act",
  title: "Act, in words",
  description:
    "Do one action on the page described in words; the server's model finds the element. Acting on an [id] with click, fill and the like needs no model and is faster.",
  inputSchema,
  needsModel: true,
  annotations: { openWorldHint: true },
  async handle({ action }, call) {
    const { context, operations } = call.browser;
    const output = await call.onRun(async (_run, deadline) => {
      const page = activePageOf(context);
      const url = page.url();
      // The run act makes starts on this page, and a run may type on its start origin: it gets
      // only the variables that belong here, and a name that does not is refused in words.
      checkNamedHere(action, call.options.variables, url);
      const result = await operations.act(
        {
          input: action,
          options: { variables: call.variablesAt(url), timeout: deadline.remaining() },
          frameId: await page.frameId(),
        },
        { signal: deadline.signal },
      );
      const now = activePageOf(context).url();
      const head = result.success ? "Done" : "Failed";
      return {
        text: `${head}: ${result.message.replace(/\.$/, "")}. The page is now ${now}; read it for its ids.`,
        action: { success: result.success },
      };
    });
    return { ...textAnswer(output.text), ...(output.action?.success ? {} : { isError: true }) };
  },
} satisfies McpTool<typeof inputSchema>;
