/**
 * A scripted model for job.config.ts's job on its saved page (page.html, and item.html where
 * the act leads): it answers each request from the page outline the request carries, as a real
 * model would, so it keeps working when the page's ids change. The model kit's handlers speak
 * OpenAI's API (test/support/llm/README.md). It stood in for the real model when the template's
 * recording was made (record.ts), and `npm run offline -- --page … --model …` runs it. For a
 * job of your own, a recording needs no such file (docs/guide/job.md); to write one anyway,
 * answer your job's act and extract from your page's outline (`--prompts` shows it).
 */
import type { RequestHandler } from "msw";
import { instructionOf, promptOf } from "../../support/llm/modelServer.js";
import { openaiResponses } from "../../support/llm/openai.js";

const LINK = /^\s*\[(\d+)\] link "(.*)"$/;

/** The links of the stories' table (the outline's `table` part): id and text. */
function storyLinks(prompt: string): { id: string; text: string }[] {
  const lines = prompt.split("\n");
  const table = lines.findIndex((line) => line.trim() === "table");
  return lines
    .slice(table === -1 ? lines.length : table + 1)
    .map((line) => LINK.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ id: m[1]!, text: m[2]! }));
}

const model: RequestHandler[] = [
  openaiResponses((request) => {
    const prompt = promptOf(request);
    const instruction = instructionOf(request).toLowerCase();
    const links = storyLinks(prompt);
    const title = links.find((l) => !/\bcomments$/.test(l.text));
    // act and observe ask for elements: the top story's comments, or its title.
    if (JSON.stringify(request.body.text ?? request.body).includes('"elements"')) {
      const chosen = instruction.includes("comment")
        ? links.find((l) => /\bcomments$/.test(l.text))
        : title;
      return {
        elements: chosen
          ? [{ elementId: chosen.id, description: chosen.text, method: "click", arguments: [] }]
          : [],
      };
    }
    // extract: the top story's title (and its points when the schema asks for them).
    const points = Number(prompt.match(/(\d+) points/)?.[1] ?? 0);
    return JSON.stringify(request.body).includes('"points"')
      ? { title: title?.text ?? "", points }
      : { extraction: title?.text ?? "" };
  }),
];

export default model;
