import { describe, expect, it } from "vitest";
import { Client, ServiceValidationError, V3OptionsSchema } from "../../lib/index.js";
import { ModelConfigSchema, ModelConfigurationSchema } from "../../lib/model/config.js";
import { resolveModel } from "../../lib/model/providers.js";
import { secretsOf } from "../../lib/secrets.js";

const vertex = {
  modelName: "vertex/gemini-2.5-flash",
  provider: "vertex",
  auth: {
    type: "googleServiceAccount",
    credentials: { client_email: "a@b.c", private_key: "KEY" },
  },
  providerOptions: { vertex: { project: "p", location: "europe-west1" } },
};
const azureOptions = {
  azure: { resourceName: "shop", apiVersion: "preview", useDeploymentBasedUrls: true },
};

describe("model configuration shapes", () => {
  it("takes a provider/model string and each of the four object shapes", () => {
    expect(ModelConfigurationSchema.parse("openai/gpt-4.1-mini")).toBe("openai/gpt-4.1-mini");
    for (const shape of [
      {
        modelName: "openai/gpt-4.1-mini",
        apiKey: "k",
        baseURL: "https://proxy.test/v1",
        headers: { a: "b" },
        openaiEndpointFormat: "chat",
      },
      { modelName: "claude-sonnet-4-5", provider: "anthropic" },
      vertex,
      {
        modelName: "gpt-4o",
        provider: "azure",
        providerOptions: azureOptions,
        auth: { type: "azureEntraId", token: "t" },
      },
      { modelName: "gpt-4o", provider: "azure", providerOptions: azureOptions, apiKey: "k" },
    ]) {
      expect(ModelConfigSchema.safeParse(shape).success, JSON.stringify(shape)).toBe(true);
    }
  });

  it("refuses unknown properties, and mixtures of two shapes", () => {
    const refused = [
      { modelName: "openai/gpt-4.1-mini", temperature: 0 },
      { ...vertex, apiVersion: "v1" },
      { ...vertex, providerOptions: { vertex: { project: "p" } } },
      {
        ...vertex,
        auth: {
          ...vertex.auth,
          credentials: { client_email: "a@b.c", private_key: "K", extra: 1 },
        },
      },
      // Azure with both an API key and an Entra token is neither shape.
      {
        modelName: "gpt-4o",
        provider: "azure",
        providerOptions: azureOptions,
        apiKey: "k",
        auth: { type: "azureEntraId", token: "t" },
      },
      { modelName: "gpt-4o", provider: "azure", providerOptions: { azure: { region: "x" } } },
      { modelName: "x", provider: "mistral" },
      { modelName: "openai/x", openaiEndpointFormat: "completions" },
      { modelName: "openai/x", baseURL: "not a url" },
    ];
    for (const shape of refused) {
      expect(ModelConfigSchema.safeParse(shape).success, JSON.stringify(shape)).toBe(false);
    }
  });

  it("is what the Client checks its model option against, naming the field", () => {
    expect(
      () => new Client({ env: "LOCAL", model: { modelName: "openai/x", temperature: 0 } as never }),
    ).toThrow(ServiceValidationError);
    expect(() => new Client({ env: "LOCAL", model: { modelName: "" } })).toThrow(/model/);
    expect(() => new Client({ env: "LOCAL", llmClient: { modelId: "m" } as never })).toThrow(
      /expected an AI SDK LanguageModel/,
    );
  });
});

describe("secrets of a configuration", () => {
  it("credential headers, keys and key-like URL parameters are secrets; plain header values are not", () => {
    const model = {
      modelName: "openai/gpt-4.1",
      apiKey: "sk-config-secret-1",
      baseURL: "https://gw.test/v1?api_key=gateway-secret-2&region=eu",
      headers: { "x-proxy-token": "short-tok", "X-Title": "Shop", "x-trace": "a".repeat(30) },
    };
    const resolved = resolveModel(model, {});
    for (const secrets of [
      resolved.secrets,
      secretsOf(V3OptionsSchema.parse({ env: "LOCAL", model }), {}),
    ]) {
      expect(secrets).toEqual(
        expect.arrayContaining([
          "sk-config-secret-1",
          "gateway-secret-2",
          "short-tok",
          "a".repeat(30),
        ]),
      );
      expect(secrets).not.toContain("Shop");
      expect(secrets).not.toContain("eu");
    }
  });
});
