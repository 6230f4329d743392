/**
 * An agent run's answer over the wire: the result, and the cache entry beside it when it is one
 * of ours. An entry of another version or shape is a miss (logged), never a failed run.
 */
import { describe, expect, it } from "vitest";
import type { AgentExecuteRequest } from "../../lib/api/operations.js";
import { CACHE_ENTRY_VERSION } from "../../lib/cache/cacheEntry.js";
import { WireOperations } from "../../lib/engine/wireOperations.js";
import { Logger, type LogLine } from "../../lib/log.js";
import { MetricsRecorder } from "../../lib/metrics.js";

const RESULT = { success: true, completed: true, message: "Done", actions: [] };
const KEY = "agent-v1-0123456789abcdef0123456789abcdef";
const ENTRY = {
  version: CACHE_ENTRY_VERSION,
  key: KEY,
  method: "agent",
  createdAt: new Date(0).toISOString(),
  parts: {},
  steps: [{ tool: "back", input: {} }],
  message: "Done",
};
const REQUEST: AgentExecuteRequest = {
  agentConfig: { mode: "dom" },
  executeOptions: { instruction: "go back", maxSteps: 5, toolTimeout: 1000 },
  shouldCache: true,
};

function answering(cacheEntry: unknown) {
  const lines: LogLine[] = [];
  const logger = new Logger({ verbose: 1, disablePino: true, logger: (l) => lines.push(l) });
  const operations = new WireOperations(
    async function* () {
      yield JSON.stringify({ id: "1", type: "system", data: { status: "starting" } });
      yield JSON.stringify({
        id: "2",
        type: "system",
        data: { status: "finished", result: RESULT, cacheEntry },
      });
    },
    { logger, metrics: new MetricsRecorder() },
  );
  return { operations, lines };
}

describe("agentExecute over the wire", () => {
  it("reads the result and the cache entry beside it", async () => {
    const { operations } = answering({ cacheKey: KEY, entry: ENTRY });
    expect(await operations.agentExecute(REQUEST, {})).toEqual({
      result: RESULT,
      cacheEntry: { cacheKey: KEY, entry: ENTRY },
    });
  });

  it("keeps the result and drops an entry that is not one of ours, with a warning", async () => {
    for (const foreign of [
      { cacheKey: KEY, entry: { ...ENTRY, version: CACHE_ENTRY_VERSION + 1 } },
      { cacheKey: KEY, entry: { ...ENTRY, steps: [{ tool: "teleport" }] } },
      "not an entry",
    ]) {
      const { operations, lines } = answering(foreign);
      const answer = await operations.agentExecute(REQUEST, {});
      expect(answer).toEqual({ result: RESULT, cacheEntry: undefined });
      expect(lines.map((l) => l.message)).toEqual([
        "ignored a cache entry the service sent that is not one of ours",
      ]);
    }
  });
});
