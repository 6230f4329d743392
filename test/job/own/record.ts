/**
 * Makes the template's own recording (recordings/job/), as `npm start -- --record` would on a
 * machine that reaches the site and the model, from stand-ins for both: no real site or model is
 * reachable from the machines this template is built on. The saved pages beside this file answer
 * the browser's requests for https://news.ycombinator.com/ (in the browser, before any network),
 * and model.ts answers the model's requests at OpenAI's URL (msw, in this process). The recorder
 * is the one `npm start -- --record` runs, and cannot tell: what it keeps is what the browser
 * received and what the model answered.
 *
 *   npx tsx test/job/own/record.ts
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setupServer } from "msw/node";
import { job } from "../../../job.config.js";
import { replayTraffic } from "../../../lib/browser/trafficReplay.js";
import { resolveJob } from "../../../lib/job/definition.js";
import { recordJob } from "../../../lib/job/recording/recordJob.js";
import model from "./model.js";

const SITE = "https://news.ycombinator.com/";
const page = (file: string) => ({
  response: {
    method: "GET",
    url: new URL(file === "page.html" ? "" : file, SITE).href,
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8" },
  },
  body: readFileSync(join(import.meta.dirname, file)),
});

const definition = resolveJob(job, {});
if (definition.url !== SITE) {
  throw new Error(
    `job.config.ts's url is ${definition.url}: this script records the template's job`,
  );
}
// The provider's key is checked before a call is made: one that is not one.
process.env.OPENAI_API_KEY = "sk-stand-in-for-the-template-recording";
const provider = setupServer(...model);
provider.listen({ onUnhandledRequest: "bypass" });
try {
  const { recording } = await recordJob(definition, {
    folder: join(import.meta.dirname, "..", "..", "..", "recordings", "job"),
    onStep: (step, about) => console.log(`… ${step}${about ? `: ${about}` : ""}`),
    standIn: async (context) => {
      await replayTraffic(context, [page("page.html"), page("item.html")]);
    },
  });
  console.log(`recorded recordings/job: ${JSON.stringify(recording.answer)}`);
} finally {
  provider.close();
}
