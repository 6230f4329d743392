import { z } from "zod";
import { defineTool } from "./defineTool.js";

export default defineTool({
  name: "search",
  readOnly: true,
  description: "Search the web: titles, URLs and snippets. Open one with goto.",
  inputSchema: z.object({
    query: z.string().min(1).describe("What to search for"),
  }),
  async execute({ query }, run, deadline) {
    // The registry offers this tool only when a backend is configured.
    const backend = run.search!;
    const results = await backend.search(query, deadline.signal);
    const text = results.length
      ? results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join("\n")
      : "No results.";
    return {
      text: `Results from ${backend.name} for "${query}":\n${text}`,
      action: { instruction: query, results: results.map((r) => r.url) },
    };
  },
});
