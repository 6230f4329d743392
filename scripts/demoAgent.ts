/**
 * `npm run demo:agent`: the agent offline, with no key: the tea search pages of the tests
 * (test/fixtures/agent/) served on 127.0.0.1 and the test kit's scripted agent (msw,
 * in-process) standing in for a real model. It streams each step as it happens.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setupServer } from "msw/node";
import { Client } from "../lib/index.js";
import { teaAgent, teaExecutionModel } from "../test/support/llm/teaAgent.js";

const PAGES = join(import.meta.dirname, "..", "test", "fixtures", "agent");

async function main(): Promise<void> {
  const site = createServer(async (req, res) => {
    const name = new URL(req.url ?? "/", "http://x").pathname.slice(1) || "search.html";
    // The pages are flat files: anything with a slash or a dot-dot is not one of them.
    if (!/^[\w-]+\.(html|js)$/.test(name)) return res.writeHead(404).end();
    const body = await readFile(join(PAGES, name)).catch(() => undefined);
    if (!body) return res.writeHead(404).end();
    const type = name.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8";
    res.writeHead(200, { "content-type": type }).end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const model = setupServer(teaAgent(), teaExecutionModel());
  model.listen({ onUnhandledRequest: "bypass" });
  const client = new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    model: { modelName: "openai/demo-scripted-model", apiKey: "demo-no-real-key" },
  });
  try {
    console.log("DEMONSTRATION: bundled pages and a scripted model stand in for the real ones.");
    await client.init();
    await client.context.activePage()!.goto(`${origin}/search.html`);
    const { fullStream, result } = client
      .agent({ stream: true })
      .execute("Find the price of oolong tea");
    for await (const event of fullStream) {
      if (event.type === "tool-call") {
        console.log(`step ${event.step}: ${event.toolName} ${JSON.stringify(event.input)}`);
      } else if (event.type === "tool-result") {
        const first = event.output.split("\n")[0]!.slice(0, 100);
        console.log(`         ${event.error ? "failed" : "→"} ${first} (${event.timeMs} ms)`);
      }
    }
    const { success, message, usage, metadata } = await result;
    console.log(JSON.stringify({ success, message, steps: metadata?.steps, usage, demo: true }));
  } finally {
    await client.close();
    model.close();
    await new Promise((resolve) => site.close(resolve));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
