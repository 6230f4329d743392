export type { ActResult, AgentEvent } from "./api/operations.js";
export type { Context } from "./browser/context.js";
export type { DeepLocator, LocatorActionOptions } from "./browser/deepLocator.js";
export type { NavigationOptions, Page } from "./browser/page.js";
export { Client } from "./client.js";
export * from "./errors.js";
export type { HistoryEntry } from "./history.js";
export { HistoryEntrySchema } from "./history.js";
export type { LogLevel, LogLine, LogReceiver } from "./log.js";
export type { Metrics } from "./metrics.js";
export { MetricsSchema } from "./metrics.js";
export type { Agent, AgentExecuteInput, AgentStream } from "./operations/agentHandle.js";
export type {
  Action,
  ActOptions,
  AgentAction,
  AgentConfig,
  AgentExecuteOptions,
  AgentResult,
  AgentUsage,
  DialogHandler,
  DialogPolicy,
  ExtractOptions,
  LocalBrowserLaunchOptions,
  ModelConfiguration,
  ObserveOptions,
  V3Options,
  Variables,
} from "./options.js";
export {
  AgentConfigSchema,
  AgentExecuteOptionsSchema,
  AgentResultSchema,
  LocalBrowserLaunchOptionsSchema,
  V3OptionsSchema,
} from "./options.js";
