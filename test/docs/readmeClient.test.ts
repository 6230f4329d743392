/**
 * The README's "Using the client" example runs as written, with only its page's address changed
 * (example.com is out of reach here: a copy of it on 127.0.0.1) and the model kit standing in for
 * OpenAI at its URL; its key comes from OPENAI_API_KEY, as the example says.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { codeBlocks } from "../support/docBlocks.js";
import { restoreEnvAfterwards } from "../support/env.js";
import { anyJobModel } from "../support/llm/anyJobModel.js";
import { useModelServer } from "../support/llm/modelServer.js";

const ROOT = join(import.meta.dirname, "..", "..");
const PAGES: Record<string, string> = {
  "/": `<!doctype html><title>Example Domain</title><h1>Example Domain</h1>
<p>This domain is for use in documentation examples.</p>
<p><a href="/domains">More information...</a></p>`,
  "/domains": `<!doctype html><title>IANA-managed Reserved Domains</title>
<h1>IANA-managed Reserved Domains</h1><p>Certain domains are set aside.</p>`,
};

const models = useModelServer(anyJobModel());
let site: Server;
let origin: string;
beforeAll(async () => {
  site = createServer((req, res) => {
    const page = PAGES[req.url ?? ""];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html" }).end(page ?? "");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => site.close(resolve)));

/** The README section's one TypeScript block. */
function example(heading: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has "## ${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  const blocks = codeBlocks("README.md", readme.slice(start, end));
  expect(blocks).toHaveLength(1);
  return blocks[0]!.code;
}

describe("the README's client example", () => {
  it("runs: it clicks the link and prints the next page's heading", async () => {
    const restore = restoreEnvAfterwards();
    process.env.OPENAI_API_KEY = "sk-readme-example-key-0123456789";
    const folder = mkdtempSync(join(tmpdir(), "wayfarer-readme-"));
    const printed = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const code = example("Using the client")
        .replace('"./lib/index.js"', JSON.stringify(join(ROOT, "lib", "index.js")))
        .replace('"https://example.com"', JSON.stringify(`${origin}/`));
      expect(code).toContain(`${origin}/`);
      const file = join(folder, "example.ts");
      writeFileSync(file, code);
      await import(pathToFileURL(file).href);
      expect(printed.mock.calls.map((c) => c.join(" "))).toContain("IANA-managed Reserved Domains");
      // act and extract each asked the model once, with the key from the environment.
      const asked = models.requests();
      expect(asked).toHaveLength(2);
      expect(asked[0]!.headers.get("authorization")).toBe(`Bearer ${process.env.OPENAI_API_KEY}`);
    } finally {
      printed.mockRestore();
      restore();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
