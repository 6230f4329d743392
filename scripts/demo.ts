/**
 * `npm run demo`: the whole job — init → goto → act → extract → close — offline, with no key:
 * a bundled demo page served on 127.0.0.1 and the test kit's scripted model (msw, in-process)
 * standing in for a real one. A demonstration of the pipeline, labelled as such; `npm start`
 * runs the real job with a real model.
 *
 * `npm run demo:remote` (`--remote`): the same job in the remote environment, as the template
 * card draws it: a service started here on 127.0.0.1 hosts the browser, and the job reaches it
 * with WAYFARER_API_KEY and WAYFARER_API_URL, as a deployment would reach its own.
 */

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setupServer } from "msw/node";
import { resolveJob } from "../lib/job/definition.js";
import { runJob } from "../lib/job/runJob.js";
import { serviceConfig } from "../lib/service/config.js";
import { loadKeys } from "../lib/service/keys.js";
import { buildService } from "../lib/service/server.js";
import { shopModel } from "../test/support/llm/shopModel.js";
import { progress } from "./jobCli.js";

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
  const service = process.argv.includes("--remote") ? await startService() : undefined;
  try {
    console.log("DEMONSTRATION: a bundled page and a scripted model stand in for the real ones.");
    if (service) console.log(`… remote: the browser is a session of the service at ${service.url}`);
    const job = resolveJob(
      {
        url,
        act: "add black tea to the cart",
        extract: "what is in the cart",
        model: { modelName: "openai/demo-scripted-model", apiKey: "demo-no-real-key" },
      },
      {},
    );
    const result = await runJob(job, { onStep: progress });
    console.log(
      JSON.stringify({ ok: true, data: result.data, timings: result.timings, demo: true }),
    );
  } finally {
    await service?.close();
    model.close();
    await new Promise((resolve) => site.close(resolve));
  }
}

/** A service on 127.0.0.1 with a key made for this run; the job is pointed at it. */
async function startService(): Promise<{ url: string; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "wayfarer-demo-service-"));
  const key = `demo_${randomBytes(16).toString("hex")}`;
  const config = { ...serviceConfig({ PORT: "0", WAYFARER_ALLOW_HOSTS: "127.0.0.1" }), dataDir };
  const service = buildService(config, await loadKeys(`demo:${key}`, dataDir, () => {}));
  const url = await service.app.listen({ host: "127.0.0.1", port: 0 });
  process.env.WAYFARER_API_KEY = key;
  process.env.WAYFARER_API_URL = url;
  return {
    url,
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
