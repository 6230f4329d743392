/**
 * What the agent's tools need from a client, built once per browser: its models (usage counted
 * in its metrics), its snapshot settings, and the values typed from variables, which every later
 * outline hides. The local operations use it for their own calls and agent runs; an MCP session
 * keeps one to call the agent's page tools outside any run (lib/mcp/session.ts).
 */
import type { AgentDeps } from "../agent/agent.js";
import type { Context } from "../browser/context.js";
import type { Logger } from "../log.js";
import type { MetricsRecorder } from "../metrics.js";
import { InferenceLog } from "../model/inferenceLog.js";
import type { ModelAccess } from "../model/modelAccess.js";
import { ModelClient, type SpendGuard } from "../model/modelClient.js";
import type { ModelTap } from "../model/modelTap.js";
import type { ResolvedOptions, Variables } from "../options.js";
import { variableHider } from "../variables.js";

export interface ToolDepsExtras {
  /** A service's session: its project's budget on the operator's model keys. */
  spendGuard?: SpendGuard;
  /** A service's rules for reaching model providers. */
  modelAccess?: ModelAccess;
  /** A job's recording or replay: sees every act, observe and extract call. */
  modelTap?: ModelTap;
}

export function agentDepsFor(
  options: ResolvedOptions,
  logger: Logger,
  metrics: MetricsRecorder,
  /** The browser's pages, once init() has opened them. */
  context: () => Context,
  extras: ToolDepsExtras = {},
): AgentDeps {
  const models = new ModelClient({
    model: options.model,
    llmClient: options.llmClient,
    systemPrompt: options.systemPrompt,
    logger,
    inferenceLog: options.logInferenceToFile ? new InferenceLog(logger.redactor) : undefined,
    onUsage: (operation, usage) => metrics.add(operation, usage),
    tokenCap: options.tokenCap,
    spendGuard: extras.spendGuard,
    access: extras.modelAccess,
    tap: extras.modelTap,
  });
  /** Values typed from variables: every later outline shows their %name% instead. */
  const typed: Variables = {};
  return {
    context,
    models,
    actSettings: {
      domSettleTimeout: options.domSettleTimeout,
      outlineTokenBudget: options.outlineTokenBudget,
      maxChunksPerCall: options.maxChunksPerCall,
      logger,
      mask: () => variableHider(typed),
      selfHeal: options.selfHeal,
    },
    logger,
    rememberVariables: (v) => Object.assign(typed, v),
    typedVariables: () => typed,
  };
}
