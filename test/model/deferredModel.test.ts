/**
 * resolveModel hands out models whose provider package is imported at their first call
 * (lib/model/deferredModel.ts). Each must read as the package's own model does before that call
 * (provider id, model id: logs, labels and the cache key of a custom model are made of them) and,
 * once called, answer as it (supported URLs). Calls through each provider are the other model
 * tests' (cloudProviders, endpointVariables, modelHttp).
 */
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAzure } from "@ai-sdk/azure";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createVertex } from "@ai-sdk/google-vertex";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { ModelConfiguration } from "../../lib/model/config.js";
import { deferredModel } from "../../lib/model/deferredModel.js";
import { resolveModel } from "../../lib/model/providers.js";

const ENV = {
  OPENAI_API_KEY: "sk-test",
  ANTHROPIC_API_KEY: "sk-ant-test",
  GOOGLE_GENERATIVE_AI_API_KEY: "g-test",
  AWS_ACCESS_KEY_ID: "AKIAFAKEFORTESTS0001",
  AWS_SECRET_ACCESS_KEY: "secret",
};
const azureOptions = { azure: { resourceName: "shop" } };

/** A configuration, and the model its provider package makes for it. */
const CASES: [ModelConfiguration, LanguageModelV3][] = [
  ["openai/gpt-4.1-mini", createOpenAI({ apiKey: "k" })("gpt-4.1-mini")],
  [
    { modelName: "openai/gpt-4.1-mini", openaiEndpointFormat: "chat" },
    createOpenAI({ apiKey: "k" }).chat("gpt-4.1-mini"),
  ],
  [
    { modelName: "microsoft/phi-4", baseURL: "http://127.0.0.1:9/v1" },
    createOpenAI({ apiKey: "k" }).chat("phi-4"),
  ],
  ["anthropic/claude-sonnet-4-5", createAnthropic({ apiKey: "k" })("claude-sonnet-4-5")],
  ["google/gemini-2.5-flash", createGoogleGenerativeAI({ apiKey: "k" })("gemini-2.5-flash")],
  [
    "google/gemini-2.5-computer-use-preview-10-2025",
    createGoogleGenerativeAI({ apiKey: "k" })("gemini-2.5-computer-use-preview-10-2025"),
  ],
  [
    "bedrock/amazon.nova-pro-v1:0",
    createAmazonBedrock({ region: "us-east-1", apiKey: "k" })("amazon.nova-pro-v1:0"),
  ],
  [
    {
      modelName: "vertex/gemini-2.5-flash",
      provider: "vertex",
      auth: {
        type: "googleServiceAccount",
        credentials: { client_email: "a@b.c", private_key: "KEY" },
      },
      providerOptions: { vertex: { project: "p", location: "europe-west1" } },
    },
    createVertex({ project: "p", location: "europe-west1", apiKey: "" })("gemini-2.5-flash"),
  ],
  [
    { modelName: "gpt-4o", provider: "azure", providerOptions: azureOptions, apiKey: "k" },
    createAzure({ resourceName: "shop", apiKey: "k" })("gpt-4o"),
  ],
  [
    {
      modelName: "gpt-4o",
      provider: "azure",
      providerOptions: azureOptions,
      auth: { type: "azureEntraId", token: "t" },
    },
    createAzure({ resourceName: "shop", apiKey: "k" })("gpt-4o"),
  ],
];

describe("a resolved model before its provider is imported", () => {
  it.each(CASES)(
    "%j reads as the package's own model, and answers as it once called",
    async (configuration, own) => {
      const model = resolveModel(configuration, ENV).model as LanguageModelV3;
      expect({ provider: model.provider, modelId: model.modelId }).toEqual({
        provider: own.provider,
        modelId: own.modelId,
      });
      expect(model.specificationVersion).toBe("v3");
      expect(await model.supportedUrls).toEqual(await own.supportedUrls);
    },
  );
});

describe("deferredModel", () => {
  it("makes its model once, at the first call, and makes it again after a failed attempt", async () => {
    const made: string[] = [];
    const own = createOpenAI({ apiKey: "k" })("m");
    let failNext = true;
    const model = deferredModel("openai.responses", "m", async () => {
      made.push("attempt");
      if (failNext) {
        failNext = false;
        throw new Error("the package could not be loaded");
      }
      return own;
    });
    expect(made).toEqual([]);
    await expect(model.supportedUrls).rejects.toThrow("could not be loaded");
    expect(await model.supportedUrls).toEqual(await own.supportedUrls);
    expect(await model.supportedUrls).toEqual(await own.supportedUrls);
    expect(made).toEqual(["attempt", "attempt"]);
  });
});
