/**
 * A caller's mistake crosses the wire as its class: our remote client, on a real service on
 * 127.0.0.1, gets back the same PageNotFoundError, InvalidSelectorError, XPathResolutionError
 * and UnsupportedModelError the library throws, with the message naming what to change, from a
 * streamed answer (as operations are sent) and from a JSON one (with its status).
 */
import { describe, expect, it } from "vitest";
import { WireOperations } from "../../lib/engine/wireOperations.js";
import {
  InvalidSelectorError,
  PageNotFoundError,
  ServiceError,
  UnsupportedModelError,
  XPathResolutionError,
} from "../../lib/errors.js";
import { Logger } from "../../lib/log.js";
import { MetricsRecorder } from "../../lib/metrics.js";
import { remoteTransport } from "../../lib/remote/remoteTransport.js";
import { ServiceAnswerError, ServiceHttp } from "../../lib/remote/serviceHttp.js";
import { useModelServer } from "../support/llm/modelServer.js";
import { KEYS, useService } from "../support/service.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
// Nothing here asks a model: a request that reached one would fail the test.
useModelServer();
const service = useService();

/** What the remote client's operations and its JSON requests both go through. */
function remoteOf(sessionId: string) {
  const http = new ServiceHttp({
    baseUrl: `${service.url}/v1`,
    apiKey: KEYS.alpha,
    modelApiKey: "sk-caller-errors-test-0123456789",
  });
  const operations = new WireOperations(
    remoteTransport({ http, sessionId: () => sessionId, serverCache: false, model: undefined }),
    { logger: new Logger({ verbose: 0, disablePino: true }), metrics: new MetricsRecorder() },
  );
  return { http, operations };
}

async function failure(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("caller errors through the remote client", () => {
  it("come back as their classes, streamed and as JSON", async () => {
    const start = await service.call("POST", "/v1/sessions/start", {
      body: { modelName: "openai/gpt-4.1-mini" },
    });
    const id = start.body.data.sessionId as string;
    try {
      const { http, operations } = remoteOf(id);
      await http.json("POST", `/sessions/${id}/navigate`, { url: server.url("frames.html") });

      const page = await failure(operations.extract({ frameId: "F00D" }));
      expect(page).toBeInstanceOf(PageNotFoundError);
      expect((page as PageNotFoundError).frameId).toBe("F00D");
      expect(page.message).toMatch(/frameId "F00D".*Leave frameId out/);

      const scope = await failure(operations.observe({ options: { selector: "//aside" } }));
      expect(scope).toBeInstanceOf(XPathResolutionError);
      expect(scope).not.toBeInstanceOf(InvalidSelectorError);
      expect(scope.message).toMatch(/^options\.selector: XPath \/\/aside does not resolve/);

      const action = { selector: "//button[", description: "the button", method: "click" as const };
      const invalid = await failure(operations.act({ input: action }));
      expect(invalid).toBeInstanceOf(InvalidSelectorError);
      // Still what the reference raises for an XPath that does not resolve.
      expect(invalid).toBeInstanceOf(XPathResolutionError);
      expect(invalid).toMatchObject({ selector: "//button[", code: "SELECTOR_INVALID" });

      const mode = await failure(
        operations.agentExecute(
          {
            agentConfig: { mode: "cua", model: "openai/gpt-4.1-mini" },
            executeOptions: { instruction: "x", maxSteps: 5, toolTimeout: 5_000 },
          },
          {},
        ),
      );
      expect(mode).toBeInstanceOf(UnsupportedModelError);
      expect(mode).toMatchObject({ supported: ["dom", "hybrid"] });
      expect(mode.message).toContain("Set agentConfig.mode");

      // A JSON answer: the status with the same class inside.
      const json = await failure(http.json("POST", `/sessions/${id}/extract`, { frameId: "F00D" }));
      expect(json).toBeInstanceOf(ServiceAnswerError);
      expect((json as ServiceAnswerError).status).toBe(400);
      expect((json as ServiceAnswerError).error).toBeInstanceOf(PageNotFoundError);
      const timeout = await failure(
        http.json("POST", `/sessions/${id}/navigate`, {
          url: server.url("__hang"),
          options: { timeout: 500 },
        }),
      );
      expect((timeout as ServiceAnswerError).status).toBe(504);
      expect((timeout as ServiceAnswerError).error).toMatchObject({
        name: "ServiceTimeoutError",
        method: "goto",
        timeoutMs: 500,
      });
      expect((timeout as ServiceAnswerError).error).toBeInstanceOf(ServiceError);
    } finally {
      await service.call("POST", `/v1/sessions/${id}/end`);
    }
  });
});
