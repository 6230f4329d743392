/**
 * `npm run demo`: the whole job — init → goto → act → extract → close — offline, with no key:
 * a bundled demo page served on 127.0.0.1 and the test kit's scripted model (msw, in-process)
 * standing in for a real one. A demonstration of the pipeline, labelled as such; `npm start`
 * runs the real job with a real model.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { shopModel } from "../test/support/llm/shopModel.js";

const PAGE = `<!doctype html><html><head><title>Demo tea shop</title></head><body>
<h1>Demo tea shop</h1>
<ul>
  <li><a href="/green">Green tea</a> $4.50 <button onclick="cart.textContent='Cart: green tea'">Add to cart</button></li>
  <li><a href="/black">Black tea</a> $3.20 <button onclick="cart.textContent='Cart: black tea'">Add to cart</button></li>
</ul>
<p id="cart">Cart: empty</p>
</body></html>`;

/** The scripted model: it reads the outline it is sent, as a real model would. */
const scriptedModel = shopModel();

async function main(): Promise<void> {
  const site = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(PAGE),
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const model = setupServer(scriptedModel);
  model.listen({ onUnhandledRequest: "bypass" });
  try {
    console.log("DEMONSTRATION: a bundled page and a scripted model stand in for the real ones.");
    const job = resolveJob(
      {
        url,
        act: "add black tea to the cart",
        extract: "what is in the cart",
        model: { modelName: "openai/demo-scripted-model", apiKey: "demo-no-real-key" },
      },
      {},
    );
    const result = await runJob(job, { onStep: (step) => console.log(`… ${step}`) });
    console.log(
      JSON.stringify({ ok: true, data: result.data, timings: result.timings, demo: true }),
    );
  } finally {
    model.close();
    await new Promise((resolve) => site.close(resolve));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
