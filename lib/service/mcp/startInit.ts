/**
 * What an MCP `initialize` asks of the service, read from its headers: the session `/start`
 * would make for a body with no fields (the same browser plan, caps, address rule and secrets),
 * the model named by `x-wf-model` with the caller's key from `x-model-api-key`, and the
 * variables of `x-wf-variables`. Headers, not the conversation: the calling model never sees
 * them, and they are read once, at initialize.
 */
import { z } from "zod";
import { ServiceValidationError } from "../../errors.js";
import { parseInput, type Variables } from "../../options.js";
import type { ServiceConfig } from "../config.js";
import { callerModelKey } from "../modelBoundary.js";
import type { SessionInit } from "../session.js";
import { planBrowser } from "../startBrowser.js";
import { capStart } from "../startCaps.js";

type Headers = Record<string, string | string[] | undefined>;

const ModelHeaderSchema = z
  .string()
  .trim()
  .min(1, { error: "expected a model name such as openai/gpt-4.1-mini" })
  .max(200, { error: "expected a model name of at most 200 characters" })
  .optional();

/**
 * Each variable with the origins it may be typed on, required: a session has no task page to
 * take as its place, so a value without origins would go wherever a page's words led the model
 * (the same rule as `WAYFARER_MCP_ORIGINS_<NAME>` of `npm run mcp`).
 */
export const McpVariablesSchema = z.record(
  z.string().regex(/^\w+$/, { error: "expected a variable name of letters, digits and _" }),
  z.strictObject({
    value: z.string({ error: "expected the value as a string" }),
    description: z.string().optional(),
    origins: z
      .array(z.string().min(1), { error: "expected origins as an array of strings" })
      .min(1, {
        error: "expected at least one origin the value may be typed on (https://login.example.com)",
      }),
  }),
);

export interface McpStart {
  init: SessionInit;
  variables: Variables;
}

export async function mcpStartInit(
  headers: Headers,
  project: string,
  config: ServiceConfig,
  secrets: string[],
): Promise<McpStart> {
  const modelName = parseInput(ModelHeaderSchema, one(headers["x-wf-model"]), "x-wf-model");
  const variables = variablesOf(one(headers["x-wf-variables"]));
  const chosen = await planBrowser(undefined, config.browserPolicy, config.rule);
  const capped = capStart(
    {
      client: undefined,
      viewport: undefined,
      launchViewport: chosen.viewport,
      timeoutSeconds: undefined,
    },
    config.limits,
  );
  return {
    variables,
    init: {
      project,
      modelName,
      modelApiKey: modelName ? callerModelKey(headers) : undefined,
      verbose: undefined,
      systemPrompt: undefined,
      selfHeal: undefined,
      domSettleTimeoutMs: undefined,
      viewport: capped.viewport,
      notes: [...capped.notes, ...chosen.browser.notes, "started by an MCP client (/mcp)"],
      browser: chosen.browser,
      keepAlive: false,
      client: capped.client,
      rule: config.rule,
      // The values never show in the session's log or dashboard either.
      secrets: [...secrets, ...Object.values(variables).map((v) => v.value)],
      streamKeepAliveMs: config.streamKeepAliveMs,
    },
  };
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `x-wf-variables`: base64 (standard or URL-safe) of a JSON object; absent is none. */
function variablesOf(header: string | undefined): z.output<typeof McpVariablesSchema> {
  if (header === undefined || header.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(header.trim(), "base64").toString("utf8"));
  } catch {
    throw new ServiceValidationError("x-wf-variables", [
      {
        path: [],
        message:
          'expected base64 of a JSON object: {"name": {"value": "…", "origins": ["https://…"]}}',
      },
    ]);
  }
  return parseInput(McpVariablesSchema, json, "x-wf-variables");
}
