/**
 * Picks the engine for the client's environment, once, at construction. Environment errors
 * surface here, in the constructor, before anything is launched.
 */

import { onServerlessHost } from "../browser/chromiumPack.js";
import type { Context, PageLimit } from "../browser/context.js";
import type { DialogDuty } from "../browser/dialogs.js";
import type { LaunchProfile } from "../browser/launchArgs.js";
import type { PageHooks } from "../browser/page.js";
import {
  MissingEnvironmentVariableError,
  ServiceEnvironmentError,
  ServiceValidationError,
} from "../errors.js";
import type { Logger } from "../log.js";
import type { MetricsRecorder } from "../metrics.js";
import type { ModelAccess } from "../model/modelAccess.js";
import type { SpendGuard } from "../model/modelClient.js";
import type { ModelTap } from "../model/modelTap.js";
import type { ResolvedOptions } from "../options.js";
import { RemoteEngine } from "../remote/remoteEngine.js";
import { remoteSettings } from "../remote/remoteSettings.js";
import { serviceBaseUrl } from "../remote/serviceAddress.js";
import { ServiceHttp } from "../remote/serviceHttp.js";
import type { Engine, Operations } from "./engine.js";
import { type Confinement, LocalEngine } from "./localEngine.js";
import { LocalOperations } from "./localOperations.js";

const LAUNCH_TIMEOUT_MS = 30_000;

export function launchProfile(env: NodeJS.ProcessEnv = process.env): LaunchProfile {
  const chosen = env.WAYFARER_BROWSER_PROFILE;
  if (chosen === undefined || chosen === "") return onServerlessHost(env) ? "serverless" : "local";
  if (chosen === "local" || chosen === "serverless") return chosen;
  throw new ServiceEnvironmentError(
    `WAYFARER_BROWSER_PROFILE is "${chosen}"; expected "local" or "serverless" (or unset to choose by host).`,
  );
}

/** What the operations keep: the client's metrics. */
export interface Records {
  metrics: MetricsRecorder;
}

/** What an engine is built from: the client's options, logger, page hooks and records. */
export interface EngineParts {
  options: ResolvedOptions;
  logger: Logger;
  hooks: PageHooks;
  records: Records;
  /** Who settles dialogs on this side, when not the options' policy (a service's session). */
  dialogDuty?: DialogDuty;
  /** A service's session: its project's budget on the operator's model keys. */
  spendGuard?: SpendGuard;
  /** A service's session: whose keys its model calls use, over which fetch. */
  modelAccess?: ModelAccess;
  /** A service's session: pages past this many are closed as they open. */
  pageLimit?: PageLimit;
  /** A service's session: its browser kept apart from the host. */
  confine?: Confinement;
  /** A job's recording or replay: sees every act, observe and extract call. */
  modelTap?: ModelTap;
}

export function createEngine(parts: EngineParts): Engine {
  const { options, logger, records } = parts;
  if (options.env === "LOCAL") {
    return localEngine(
      parts,
      (context) =>
        new LocalOperations(options, logger, records.metrics, context, {
          spendGuard: parts.spendGuard,
          modelAccess: parts.modelAccess,
          modelTap: parts.modelTap,
        }),
    );
  }
  const apiKey = options.apiKey ?? process.env.WAYFARER_API_KEY;
  if (!apiKey)
    throw new MissingEnvironmentVariableError(
      "WAYFARER_API_KEY",
      `env "${options.env}" (or pass apiKey)`,
    );
  if (options.llmClient) {
    throw new ServiceValidationError("options.llmClient", [
      {
        path: [],
        message: `a model client object cannot cross to the service under env "${options.env}": configure \`model\` (a name, or { modelName, apiKey, baseURL }) instead`,
      },
    ]);
  }
  const settings = remoteSettings(options);
  const http = new ServiceHttp({
    baseUrl: serviceBaseUrl(),
    apiKey,
    modelApiKey: settings.modelApiKey,
  });
  return new RemoteEngine(parts, http, settings);
}

/** A browser on this machine, with the operations given (run here, or across a transport). */
export function localEngine(
  { options, logger, hooks, dialogDuty, pageLimit, confine }: EngineParts,
  operations: (context: () => Context) => Operations,
): LocalEngine {
  const { egress } = options;
  if (
    egress &&
    (options.localBrowserLaunchOptions.cdpUrl || options.localBrowserLaunchOptions.proxy)
  ) {
    throw new ServiceValidationError("options.egress", [
      {
        path: [],
        message:
          "the egress guard needs a browser Wayfarer launches without a proxy of its own: drop cdpUrl or proxy, or egress",
      },
    ]);
  }
  return new LocalEngine(
    {
      launch: options.localBrowserLaunchOptions,
      egress,
      profile: launchProfile(),
      keepAlive: options.keepAlive,
      launchTimeoutMs: LAUNCH_TIMEOUT_MS,
      logger,
      context: { dialogs: dialogDuty ?? options.dialogs, hooks, pageLimit },
      ...(confine ? { confine } : {}),
    },
    operations,
  );
}
