/**
 * The scheduled job: init → goto → act → extract → close, inside one budget. Every step gets
 * what is left of the budget minus a reserve, so that close() always runs and the answer leaves
 * in time; a step that would overrun is cut off and the error names it. A cap on model tokens
 * stops a runaway run between steps. Every request of a browser it launches goes through the
 * egress guard (./egress.ts).
 */

import type { Context } from "../browser/context.js";
import { type NavigationAllowance, navigationRefusal } from "../browser/navigationPolicy.js";
import { quietNetwork } from "../browser/quietNetwork.js";
import { Client, type ClientInternals } from "../client.js";
import {
  codeOf,
  NavigationRefusedError,
  ServiceError,
  ServiceTimeoutError,
  TokenCapError,
} from "../errors.js";
import type { ModelTap, TappedCall } from "../model/modelTap.js";
import type { V3Options, Variables } from "../options.js";
import { withTimeout } from "../timeout.js";
import type { JobDefinition } from "./definition.js";
import { guardedOptions, jobEgressRule, pageVerdict, unresolvedPage } from "./egress.js";

/** Kept back from every step for close() and the answer. */
export const RESERVE_MS = 5_000;
/** After load, how long the page's network must be still before the job reads it... */
export const LOADED_QUIET_MS = 300;
/** ...waited for at most this long. */
export const LOADED_WAIT_MS = 3_000;
/** Default cap on the prompt and completion tokens of one run. */
export const DEFAULT_TOKEN_CAP = 200_000;

export interface JobOptions {
  /** The whole run's budget, ms (default 60 s). */
  budgetMs?: number;
  tokenCap?: number;
  allow?: NavigationAllowance;
  /** Client options for this run (model keys, launch options, logger). */
  client?: Partial<V3Options>;
  /** Not public: the test suite runs the job on its own engine (the JSON loopback). */
  clientInternals?: ClientInternals;
  /** Not public: a recording of the run, or its replay (./recording/). */
  tap?: JobTap;
  /** Told each act, observe and extract model call as it is sent (`--prompts` prints them). */
  onModelCall?: (call: TappedCall) => void;
  /** Told as each step starts, with what it is about (the URL, the instruction): a progress line. */
  onStep?: (step: string, about?: string) => void;
  /**
   * Told, before the browser closes, the step a failed run was in, where its page was and what
   * it showed.
   */
  onFailure?: (last: { step?: string; url?: string; screenshot?: Buffer }) => void;
}

/** What a recording or a replay hooks into a run. */
export interface JobTap {
  /** The browser's pages, once open and before the job's first navigation. */
  opened?(context: Context): Promise<void>;
  /** After the last step succeeded, before the browser closes. */
  finishing?(context: Context): Promise<void>;
  /** Sees every model call of act and extract. */
  models?: ModelTap;
  /** Every request is answered inside the browser: the page's host name is not looked up. */
  offline?: boolean;
}

export interface JobResult {
  /** The extracted text (JSON text for a schema result); "" when nothing was extracted. */
  data: string;
  /** Milliseconds per step. */
  timings: Record<string, number>;
  tokens: number;
  /** The page's URL when the run ended. */
  url?: string;
}

/** The failed run's page: its URL and a screenshot, each bounded to a second (or nothing). */
async function lastSight(
  client: Client,
  variables: Variables | undefined,
): Promise<{ url?: string; screenshot?: Buffer }> {
  try {
    const page = client.context.activePage();
    if (!page) return {};
    // A field or label holding a job variable's value is painted over, as the agent's are.
    const maskValues = Object.values(variables ?? {}).map((v) =>
      String(typeof v === "object" ? v.value : v),
    );
    const screenshot = await page
      .screenshot({ type: "png", timeout: 1_000, maskValues })
      .catch(() => undefined);
    return { url: page.url(), screenshot };
  } catch {
    return {};
  }
}

export async function runJob(job: JobDefinition, options: JobOptions = {}): Promise<JobResult> {
  const budget = options.budgetMs ?? 60_000;
  const cap = options.tokenCap ?? DEFAULT_TOKEN_CAP;
  const refused = await navigationRefusal(job.url, options.allow);
  if (refused) throw new NavigationRefusedError(job.url, refused);
  // The template's intended shape is REMOTE (a hosted browser) when its key is set.
  const env = process.env.WAYFARER_API_KEY ? "REMOTE" : "LOCAL";
  // A browser of ours sends every request through the egress guard (unless the caller's options
  // give it one of their own); a hosted one has its own.
  const rule =
    (options.client?.env ?? env) === "LOCAL" && !options.client?.egress
      ? await jobEgressRule(job, options.allow)
      : undefined;
  const landing = rule ? await pageVerdict(job.url, rule) : { unresolved: false };
  if (landing.refused) throw new NavigationRefusedError(job.url, landing.refused);
  const guard = guardedOptions(rule, options.client);
  const client = new Client(
    {
      env,
      verbose: 0,
      // Checked before every model call, not only between steps.
      tokenCap: cap,
      ...guard,
      ...options.client,
      ...(job.model ? { model: job.model } : {}),
      ...(job.cacheDir ? { cacheDir: job.cacheDir } : {}),
      ...contextOptions(job, options.client?.env ?? env, { ...guard, ...options.client }),
    } as V3Options,
    { ...options.clientInternals, modelTap: modelTapOf(options) },
  );
  const timings: Record<string, number> = {};
  let tokens = 0;
  let url: string | undefined;
  let expired = false;
  let step: string | undefined;
  const started = Date.now();
  const timed = async <T>(name: string, work: () => Promise<T>, about?: string): Promise<T> => {
    step = name;
    options.onStep?.(name, about);
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      timings[name] = Date.now() - t0;
    }
  };
  const checkTokens = async () => {
    const m = await client.metrics;
    tokens = m.totalPromptTokens + m.totalCompletionTokens;
    if (tokens > cap) throw new TokenCapError(tokens, cap);
  };
  try {
    const data = await withTimeout(
      "job",
      Math.max(1, budget - RESERVE_MS),
      () => "the job's steps",
      async (deadline) => {
        const left = () => deadline.remaining();
        deadline.step("init");
        await timed("init", () => client.init());
        const page = client.context.activePage()!;
        await client.context.guardNavigations(options.allow);
        await options.tap?.opened?.(client.context);
        deadline.step("goto");
        await timed(
          "goto",
          async () => {
            if (landing.unresolved && !options.tap?.offline) throw unresolvedPage(job.url);
            await page.goto(job.url, { waitUntil: "load", timeout: left() });
            // Data a page fetches once loaded is part of what the job reads.
            await quietNetwork(page, LOADED_QUIET_MS, Math.min(LOADED_WAIT_MS, left()));
          },
          job.url,
        );
        if (job.act) {
          deadline.step("act");
          const result = await timed(
            "act",
            () => client.act(job.act!, { variables: job.variables, timeout: left() }),
            job.act,
          );
          if (!result.success) throw new ServiceError(`act did not succeed: ${result.message}`);
          await checkTokens();
        }
        let data = "";
        if (job.extract) {
          deadline.step("extract");
          data = await timed(
            "extract",
            async () => {
              if (job.schema) {
                const value = await client.extract(job.extract!, job.schema, { timeout: left() });
                return JSON.stringify(value);
              }
              return (await client.extract(job.extract!, { timeout: left() })).extraction;
            },
            job.extract,
          );
          await checkTokens();
        }
        url = page.url();
        await options.tap?.finishing?.(client.context);
        return data;
      },
    );
    return { data, timings, tokens, url };
  } catch (error) {
    expired =
      codeOf(error) === ServiceTimeoutError.code || Date.now() - started >= budget - RESERVE_MS;
    if (options.onFailure) options.onFailure({ step, ...(await lastSight(client, job.variables)) });
    throw error;
  } finally {
    // Out of time: no graceful close; the reserve is for a forced one and the answer.
    await timed("close", () => client.close({ force: expired }));
  }
}

/** The run's model tap: a recording's or a replay's, told first to whoever watches the calls. */
function modelTapOf(options: JobOptions): ModelTap | undefined {
  const { onModelCall } = options;
  const inner = options.tap?.models;
  if (!onModelCall) return inner;
  return {
    answer: (call) => {
      onModelCall(call);
      return inner?.answer?.(call);
    },
    answered: inner?.answered?.bind(inner),
  };
}

/**
 * The job's context as client options: LOCAL starts from its file, REMOTE from the service's
 * context; the launch options or session params already given are kept beside it.
 */
function contextOptions(
  job: JobDefinition,
  env: string,
  given: Partial<V3Options>,
): Partial<V3Options> {
  const context = job.context;
  const persist = context?.persist === true;
  if (env === "LOCAL" && context?.file) {
    return {
      localBrowserLaunchOptions: {
        ...given.localBrowserLaunchOptions,
        context: { path: context.file, persist },
      } as V3Options["localBrowserLaunchOptions"],
    };
  }
  if (env === "REMOTE" && context?.id) {
    const params = given.browserbaseSessionCreateParams ?? {};
    return {
      browserbaseSessionCreateParams: {
        ...params,
        browserSettings: {
          ...(params.browserSettings as Record<string, unknown> | undefined),
          context: { id: context.id, persist },
        },
      },
    };
  }
  return {};
}
