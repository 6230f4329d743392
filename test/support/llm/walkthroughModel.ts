/**
 * The model of `npm run model-kit`, and a page to drive with it: scripted for the service
 * guide's curl walk-through on any page (observe → every link, or the first when asked for it;
 * act → the first link; extract → the page's main heading, in the schema's shape when it asks
 * for `heading`), each answer read from the outline the request carries, as a real model would.
 * The pages are served by the same kit at /site/ (a page like example.com's, and where its link
 * leads), so the walk-through runs with no network at all.
 */
import { HttpResponse, http, type RequestHandler } from "msw";
import { idOfLine, instructionOf, promptOf } from "./modelServer.js";
import { openaiResponses } from "./openai.js";

export const walkthroughModel: RequestHandler = openaiResponses((request) => {
  const prompt = promptOf(request);
  const instruction = instructionOf(request).toLowerCase();
  const lines = prompt.split("\n");
  const actions = JSON.stringify(request.body.text ?? request.body).includes('"elements"');
  if (actions) {
    const links = lines.filter((l) => /\blink "/.test(l));
    const chosen = instruction.includes("first") ? links.slice(0, 1) : links;
    return {
      elements: chosen.map((line) => ({
        elementId: idOfLine(line, "link"),
        description: line.trim(),
        method: "click",
        arguments: [],
      })),
    };
  }
  const heading = lines.find((l) => /\bheading "/.test(l))?.match(/heading "([^"]*)"/)?.[1] ?? "";
  return JSON.stringify(request.body).includes('"heading"') ? { heading } : { extraction: heading };
});

/** A page like example.com's, and the one its link leads to, by path under /site/. */
export const EXAMPLE_SITE: Record<string, string> = {
  "": `<!doctype html><title>Example Domain</title><h1>Example Domain</h1>
<p>This domain is for use in documentation examples without needing permission.</p>
<p><a href="more">Learn more</a></p>`,
  more: `<!doctype html><title>About example domains</title><h1>About example domains</h1>
<p>Reserved for documentation.</p>`,
};

/** The example site at `/site/` of the kit (its handlers see requests at OpenAI's origin). */
export const exampleSite: RequestHandler = http.get(
  "https://api.openai.com/site/:page?",
  ({ params }) => {
    const page = EXAMPLE_SITE[String(params.page ?? "")];
    return page
      ? new HttpResponse(page, { headers: { "content-type": "text/html; charset=utf-8" } })
      : new HttpResponse("not found", { status: 404 });
  },
);
