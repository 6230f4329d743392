/**
 * A provider's model whose package is imported at its first call rather than when the model is
 * resolved: a service that has not yet called a provider holds none of them (the Vertex and
 * Bedrock ones bring Google's and AWS's auth libraries). It reports the provider id and model id
 * the package's own model reports (test/model/deferredModel.test.ts compares them), so logs,
 * labels and cache keys read the same.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";

export function deferredModel(
  /** The package model's own `provider`, e.g. "openai.responses". */
  provider: string,
  modelId: string,
  make: () => Promise<LanguageModelV3>,
): LanguageModelV3 {
  let made: Promise<LanguageModelV3> | undefined;
  const model = () => {
    made ??= make().catch((error: unknown) => {
      // A failed import or factory is tried again by the next call, as a sync one would be.
      made = undefined;
      throw error;
    });
    return made;
  };
  return {
    specificationVersion: "v3",
    provider,
    modelId,
    get supportedUrls() {
      return model().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
}
