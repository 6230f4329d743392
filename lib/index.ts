export type { Context } from "./browser/context.ts";
export type { DeepLocator, LocatorActionOptions } from "./browser/deepLocator.ts";
export type { NavigationOptions, Page } from "./browser/page.ts";
export { Client } from "./client.ts";
export * from "./errors.ts";
export type { HistoryEntry } from "./history.ts";
export { HistoryEntrySchema } from "./history.ts";
export type { LogLevel, LogLine, LogReceiver } from "./log.ts";
export type { Metrics } from "./metrics.ts";
export { MetricsSchema } from "./metrics.ts";
export type {
  DialogHandler,
  DialogPolicy,
  LocalBrowserLaunchOptions,
  ModelConfiguration,
  V3Options,
} from "./options.ts";
export { LocalBrowserLaunchOptionsSchema, V3OptionsSchema } from "./options.ts";
