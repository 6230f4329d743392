/**
 * `npm run bench:service`: every figure of the service, each next to its baselines in the same
 * run. A section is one file under bench/service/ (its own header says what it measures); each
 * compares the sides of bench/service/sides.ts: this tree ("now"), the service at
 * BENCH_BEFORE=<commit>, and the reference v1 server when BENCH_REFERENCE is set.
 *
 *   npm run bench:service
 *   BENCH_BEFORE=bb06e47 npm run bench:service
 *   BENCH_SECTIONS=coldStart,startPool npm run bench:service
 */
import { serveModelKit } from "../test/support/llm/modelHttp.js";
import { shopModel } from "../test/support/llm/shopModel.js";

/** In the order they run: the cheap, quiet ones first, the loaded ones last. */
const ALL = ["coldStart", "startPool", "extract", "actLastMile", "cpu", "memory", "load"];
const chosen = (process.env.BENCH_SECTIONS ?? ALL.join(",")).split(",").map((s) => s.trim());
const unknown = chosen.filter((s) => !ALL.includes(s));
if (unknown.length)
  throw new Error(`BENCH_SECTIONS: no section ${unknown.join(", ")}; there are ${ALL.join(", ")}`);

// The test kit's scripted shop model (it reads each request to decide): the "Add to cart"
// button after the product named, the "Cart:" line for extract.
const kit = await serveModelKit(shopModel());
// In-process clients resolve their model as the service does: by OPENAI_BASE_URL, at the kit.
process.env.OPENAI_BASE_URL = kit.url;
try {
  for (const name of ALL.filter((s) => chosen.includes(s))) {
    const section = (await import(`./service/${name}.ts`)) as {
      run(setup: { modelUrl: string; kit: typeof kit }): Promise<void>;
    };
    console.log(`\n## ${name}`);
    await section.run({ modelUrl: kit.url, kit });
  }
} finally {
  await kit.close();
}
