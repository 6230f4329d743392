import { z } from "zod";
import { extractData } from "../../handlers/extract.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "extract",
  description:
    "Read information from the current page: prices, names, lists, the answer to a question about what the page shows.",
  inputSchema: z.object({
    instruction: z
      .string()
      .min(1)
      .describe('What to read, e.g. "the price of the Green tea", "the titles of all results"'),
  }),
  async execute({ instruction }, run, deadline) {
    const page = run.page();
    const data = await extractData(
      page,
      instruction,
      undefined,
      { model: run.executionModel },
      run.actSettings,
      deadline,
    );
    const extraction = (data as { extraction: string }).extraction;
    return {
      text: `Extracted: ${extraction}`,
      action: { instruction, extraction, pageUrl: page.url() },
    };
  },
});
