import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { zodSchemaOf } from "../../lib/api/jsonSchema.js";
import { mergeAnswers } from "../../lib/handlers/extract.js";
import {
  LLMResponseError,
  ServiceValidationError,
  ZodSchemaValidationError,
} from "../../lib/index.js";
import { ENGINE, useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import {
  failing,
  idOfLine,
  type ModelRequest,
  promptOf,
  useModelServer,
} from "../support/llm/modelServer.js";
import { OPENAI_USAGE, openaiResponses } from "../support/llm/openai.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const model = useModelServer();
const clients = useClients();
const KEY = "sk-extract-test-key-123456";

/** Products as the scripted model reads them from the outline in the request. */
function productsIn(request: ModelRequest) {
  const prompt = promptOf(request);
  const names = ["Green tea", "Black tea", "White tea", "Oolong"];
  return names
    .filter((n) => prompt.includes(`link "${n}"`))
    .map((n) => ({
      name: n,
      price: Number(prompt.split(`link "${n}"`)[1]!.match(/\$(\d+\.\d+)/)![1]),
      url: idOfLine(prompt, `link "${n}"`)!,
    }));
}

async function openShop(options: Record<string, unknown> = {}) {
  const client = await clients.open({
    model: { modelName: "openai/gpt-4.1-mini", apiKey: KEY },
    ...options,
  });
  await client.context.activePage()!.goto(server.url("outline/shop.html"));
  return client;
}

describe("extract with an instruction", () => {
  it("answers in the schema's type, nested objects and arrays, URL fields mapped from link ids", async () => {
    model.use(openaiResponses((r) => ({ shop: "Tea shop", products: productsIn(r) })));
    const client = await openShop();
    const Schema = z.object({
      shop: z.string(),
      products: z.array(z.object({ name: z.string(), price: z.number(), url: z.url() })),
    });
    const result = await client.extract("the products with prices and links", Schema);
    expect(result.shop).toBe("Tea shop");
    expect(result.products).toEqual([
      { name: "Green tea", price: 4.5, url: `${server.origin}/products/green` },
      { name: "Black tea", price: 3.2, url: `${server.origin}/products/black` },
      { name: "White tea", price: 7, url: `${server.origin}/products/white?size=large` },
      { name: "Oolong", price: 6.1, url: "https://teas.example/oolong" },
    ]);
    // One model call; the outline went in, URLs did not; the model was told URL fields are ids.
    expect(model.requests()).toHaveLength(1);
    const request = model.requests()[0]!;
    expect(promptOf(request)).toContain('link "White tea"');
    expect(JSON.stringify(request.body)).not.toContain("/products/");
    expect(JSON.stringify(request.body)).toContain("the id of the link");
  });

  it("takes non-object schemas, the object form, and a string instruction alone", async () => {
    const client = await openShop();
    model.use(openaiResponses((r) => ({ value: productsIn(r).map((p) => p.name) })));
    expect(await client.extract("product names", z.array(z.string()))).toEqual([
      "Green tea",
      "Black tea",
      "White tea",
      "Oolong",
    ]);
    model.use(openaiResponses(() => ({ value: 4 })));
    expect(
      await client.extract({
        instruction: "how many products",
        schema: z.number(),
        selector: "//ul",
      }),
    ).toBe(4);
    expect(promptOf(model.requests().at(-1)!)).not.toContain("Free shipping");
    model.use(openaiResponses(() => ({ extraction: "Free shipping over $20." })));
    expect(await client.extract("the shipping terms")).toEqual({
      extraction: "Free shipping over $20.",
    });
  });

  it("refuses a recursive schema with a clear error naming extract.schema, and asks no model", async () => {
    model.use(openaiResponses(() => ({ name: "never asked" })));
    const client = await openShop();
    const Category = z.object({
      name: z.string(),
      get children() {
        return z.array(Category);
      },
    });
    const error = await failure(client.extract("the category tree", Category));
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect(error.message).toMatch(/extract\.schema[\s\S]*refers to itself/);
    expect(model.requests()).toHaveLength(0);
    // A JSON Schema that refers to itself, as a remote caller could send it, is refused alike.
    expect(() => zodSchemaOf({ type: "object", properties: { next: { $ref: "#" } } })).toThrow(
      /refers to itself/,
    );
  });

  it("raises ZodSchemaValidationError, with its issues, when the answer breaks the schema", async () => {
    model.use(openaiResponses(() => ({ name: "Green tea", price: "four fifty" })));
    const client = await openShop();
    const error = await failure(
      client.extract("the first product", z.object({ name: z.string(), price: z.number() })),
    );
    expect(error).toBeInstanceOf(ZodSchemaValidationError);
    expect(error.message).toContain("price");
  });

  it("files usage under extract, records history, joins the system prompt, adds a screenshot when asked", async () => {
    model.use(openaiResponses(() => ({ extraction: "Tea shop" })));
    const client = await openShop({ systemPrompt: "Answer in English." });
    await client.extract("the shop's name", { screenshot: true });
    const metrics = await client.metrics;
    expect(metrics.extractPromptTokens).toBe(OPENAI_USAGE.input);
    expect(metrics.totalPromptTokens).toBe(OPENAI_USAGE.input);
    expect(metrics.actPromptTokens).toBe(0);
    const history = await client.history;
    expect(history.at(-1)).toMatchObject({
      method: "extract",
      parameters: { instruction: "the shop's name", screenshot: true },
      result: { extraction: "Tea shop" },
    });
    const body = JSON.stringify(model.requests()[0]!.body);
    expect(body).toContain("Answer in English.");
    expect(body).toContain("data:image/png;base64,");
  });

  it("a per-call model overrides the client's; a provider failure is an LLMResponseError", async () => {
    model.use(openaiResponses(() => ({ extraction: "x" }), "http://127.0.0.1:9/other/v1"));
    const client = await openShop();
    await client.extract("anything", {
      model: { modelName: "openai/gpt-4.1", apiKey: KEY, baseURL: "http://127.0.0.1:9/other/v1" },
    });
    expect(model.requests()[0]!.url.host).toBe("127.0.0.1:9");
    expect(model.requests()[0]!.body.model).toBe("gpt-4.1");
    model.use(
      failing("https://api.openai.com/v1/responses", 400, {
        error: { message: "model not found" },
      }),
    );
    const error = await failure(client.extract("anything"));
    expect(error).toBeInstanceOf(LLMResponseError);
    // A service tells a provider's failure by its status in its own words, never the body.
    expect(error.message).toContain(ENGINE === "remote" ? "HTTP 400" : "model not found");
  });

  // Under REMOTE the model is called on the service: inference files would be the service's.
  it.skipIf(ENGINE === "remote")(
    "writes the inference log when logInferenceToFile is on, without the key",
    async () => {
      const cwd = process.cwd();
      const dir = await mkdtemp(join(tmpdir(), "wayfarer-cwd-"));
      process.chdir(dir);
      try {
        model.use(openaiResponses(() => ({ extraction: "Tea shop" })));
        const client = await openShop({ logInferenceToFile: true });
        await client.extract("the shop's name");
        const files = await readdir(join(dir, "inference_summary"));
        expect(files).toHaveLength(1);
        expect(files[0]).toMatch(/_extract_1_\d+\.json$/);
      } finally {
        process.chdir(cwd);
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe("schemas the model is asked to answer", () => {
  it("optional fields are asked for as nullable (strict output) and null comes back absent", async () => {
    model.use(openaiResponses(() => ({ name: "Green tea", discount: null, origin: "Japan" })));
    const client = await openShop();
    const result = await client.extract(
      "the first product",
      z.object({
        name: z.string(),
        discount: z.number().optional(),
        origin: z.string().optional(),
      }),
    );
    expect(result).toEqual({ name: "Green tea", origin: "Japan" });
    expect("discount" in result).toBe(false);
    const format = (
      model.requests()[0]!.body.text as {
        format: { schema: Record<string, unknown>; strict: boolean };
      }
    ).format;
    expect(format.strict).toBe(true);
    expect(format.schema.required).toEqual(["name", "discount", "origin"]);
  });

  it("maps link ids in URL fields under defaults, unions and records, keeping the field's own description", async () => {
    model.use(
      openaiResponses((r) => ({
        home: idOfLine(promptOf(r), 'link "Green tea"'),
        either: idOfLine(promptOf(r), 'link "Black tea"'),
        byName: { white: idOfLine(promptOf(r), 'link "White tea"') },
      })),
    );
    const client = await openShop();
    const result = await client.extract(
      "links",
      z.object({
        home: z.url().describe("the first product page").default("https://fallback.test/"),
        either: z.union([z.url(), z.number()]),
        byName: z.record(z.string(), z.url()),
      }),
    );
    expect(result).toEqual({
      home: `${server.origin}/products/green`,
      either: `${server.origin}/products/black`,
      byName: { white: `${server.origin}/products/white?size=large` },
    });
    expect(JSON.stringify(model.requests()[0]!.body)).toContain(
      "the first product page — answer with the id",
    );
  });
});

describe("outlines over the token budget", () => {
  it("reads the chunks in page order and merges the answers", async () => {
    model.use(
      openaiResponses((r) => ({
        shop: promptOf(r).includes('heading "Tea shop"') ? "Tea shop" : null,
        products: productsIn(r),
      })),
    );
    const client = await openShop({ outlineTokenBudget: 100 });
    const result = await client.extract(
      "the products",
      z.object({
        shop: z.string(),
        products: z.array(z.object({ name: z.string(), price: z.number(), url: z.url() })),
      }),
    );
    expect(model.requests().length).toBeGreaterThan(1);
    // Every part the model is sent names the page first.
    for (const request of model.requests()) {
      expect(promptOf(request)).toMatch(/Page outline[^\n]*\ndocument "Tea shop"\n/);
    }
    expect(result.shop).toBe("Tea shop");
    expect(result.products.map((p) => p.name)).toEqual([
      "Green tea",
      "Black tea",
      "White tea",
      "Oolong",
    ]);
    expect(result.products[3]!.url).toBe("https://teas.example/oolong");
    expect((await client.metrics).extractPromptTokens).toBe(
      model.requests().length * OPENAI_USAGE.input,
    );
  });

  it("merges: lists joined, extraction texts joined by lines, other values first found", () => {
    expect(
      mergeAnswers(
        { a: [1], b: null, c: "x", extraction: "one", nested: { d: "" } },
        { a: [2], b: 5, c: "y", extraction: "two", nested: { d: "z" } },
      ),
    ).toEqual({ a: [1, 2], b: 5, c: "x", extraction: "one\ntwo", nested: { d: "z" } });
  });
});
