import { z } from "zod";
import { extractData } from "../../handlers/extract.js";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "extract",
  readOnly: true,
  description: "Read information from the page: the answer to a question about what it shows.",
  inputSchema: z.object({
    instruction: z.string().min(1).describe('What to read: "the price of the Green tea"'),
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
