/**
 * `npm run model-kit`: a scripted model and a page to drive, on 127.0.0.1, so that the service
 * (and its curl walk-through, docs/guide/service.md) runs with no model key and no network. The
 * model speaks OpenAI's API at /v1 (any key is taken) and answers from the outline each request
 * carries (test/support/llm/walkthroughModel.ts); /site/ is a page like example.com's. PORT
 * picks the port (default 4010). Ctrl-C or SIGTERM stops it.
 */
import { serveModelKitOn } from "../test/support/llm/modelHttp.js";
import { exampleSite, walkthroughModel } from "../test/support/llm/walkthroughModel.js";

const port = Number(process.env.PORT ?? 4010);
const kit = await serveModelKitOn("127.0.0.1", port, walkthroughModel, exampleSite);
const origin = kit.url.replace(/\/v1$/, "");
console.log(`The model kit: a scripted model and a page to drive, on ${origin} (Ctrl-C stops it)
  OPENAI_BASE_URL=${kit.url}   the model's API (OpenAI's; any key works)
  PAGE=${origin}/site/         a page like example.com's`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    void kit.close().finally(() => process.exit(0));
  });
}
