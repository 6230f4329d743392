/**
 * The job's network guard. A job runs on a cloud function and opens pages of other people's
 * sites; the navigation policy keeps its documents off cloud metadata, but a page's images,
 * prefetches, scripts, frames, fetches and WebSockets would still leave from the function. So
 * the job's browser sends every request through the egress guard (lib/browser/egressProxy.ts)
 * under this rule, unless the job opts out (`egress: false`, `JOB_EGRESS=off`).
 *
 * The rule refuses link-local and cloud metadata addresses (as the navigation policy does), and
 * also loopback and private ones: on a function the loopback holds the platform's own endpoints
 * (AWS Lambda's runtime API takes the invocation's answer at 127.0.0.1:9001) and private
 * addresses reach the cloud network it runs in; a page on the web has no business there. The
 * job's own page is what its operator asked for: when its host is written as a loopback or
 * private address (a page on 127.0.0.1 in `npm run demo`) or is `localhost`, those addresses are
 * let through. A name is never resolved for this: its DNS belongs to the site, which could point
 * it at 127.0.0.1 and so open the function's loopback to its own page. An intranet site by name
 * goes in `allowHosts`.
 */
import { isIP } from "node:net";
import { z } from "zod";
import type { NavigationAllowance } from "../browser/navigationPolicy.js";
import { ServiceValidationError } from "../errors.js";
import {
  type AddressKind,
  type AddressRule,
  judgeHost,
  kindsOf,
  type Lookup,
  normalHost,
  systemLookup,
} from "../net/addressRule.js";
import type { V3Options } from "../options.js";
import { navigationError } from "../readableError.js";

export const JobEgressSchema = z
  .union([
    z.boolean(),
    z.strictObject({
      allowHosts: z
        .array(z.string().min(1))
        .describe(
          "More loopback or private hosts the page may reach: names as written (whatever they resolve to), addresses and CIDR ranges (`10.0.0.0/8`).",
        ),
    }),
  ])
  .describe(
    "The egress guard: every request of the job's browser (sub-resources included) checked by the address rule. On unless `false`; `{allowHosts}` keeps it on and lets more hosts through. `JOB_EGRESS=off` or `on` overrides it.",
  );
export type JobEgress = z.infer<typeof JobEgressSchema>;

/** `JOB_EGRESS` as the definition's field; undefined when unset. */
export function egressFromEnv(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim().toLowerCase();
  if (v === "on") return true;
  if (v === "off") return false;
  throw new ServiceValidationError("JOB_EGRESS", [
    { path: [], message: `is "${value}"; expected "on" or "off" (or unset: on)` },
  ]);
}

/** The job's rule; undefined when the job opted out. */
export async function jobEgressRule(
  job: { url: string; egress?: JobEgress | undefined },
  allow: NavigationAllowance = {},
): Promise<AddressRule | undefined> {
  if (job.egress === false) return undefined;
  const refuse: AddressKind[] = ["loopback", "private"];
  if (!allow.linkLocal) refuse.unshift("link-local");
  const extra = typeof job.egress === "object" ? job.egress.allowHosts : [];
  return { refuse, allowHosts: [...ownAddresses(job.url), ...extra] };
}

/** The loopback or private addresses the job's page is written with (none for a name). */
function ownAddresses(url: string): string[] {
  const host = normalHost(URL.parse(url)?.hostname ?? "");
  const addresses = host === "localhost" ? ["127.0.0.1", "::1"] : isIP(host) ? [host] : [];
  return addresses.filter((a) => kindsOf(a).some((k) => k === "loopback" || k === "private"));
}

/**
 * What the guard will make of the job's own page, found before the browser starts: refused
 * (an intranet name not listed in allowHosts), or a name that resolves to nothing. Through the
 * guard the first would load the guard's 403 as if it were the page, and the second would fail
 * as a broken tunnel (https) rather than as the unknown name it is.
 */
export async function pageVerdict(
  url: string,
  rule: AddressRule,
  lookup: Lookup = systemLookup,
): Promise<{ refused?: string; unresolved: boolean }> {
  const host = URL.parse(url)?.hostname;
  if (!host) return { unresolved: false };
  const verdict = await judgeHost(host, rule, lookup);
  if ("refused" in verdict) {
    return {
      refused: `${verdict.refused}, which the job's egress guard refuses (list the host in egress.allowHosts, or set JOB_EGRESS=off)`,
      unresolved: false,
    };
  }
  return { unresolved: verdict.addresses.length === 0 };
}

/** The goto step's error for a page whose name resolves to nothing: Chromium's own, as unguarded. */
export function unresolvedPage(url: string): unknown {
  return navigationError("goto", url, new Error(`net::ERR_NAME_NOT_RESOLVED at ${url}`));
}

/**
 * The client options that put the job's browser behind the guard. The guard is the browser's
 * proxy: a browser with a proxy of its own, or one the job attaches to, cannot have it, and is
 * refused rather than left unguarded.
 */
export function guardedOptions(
  rule: AddressRule | undefined,
  client: Partial<V3Options> = {},
): Partial<V3Options> {
  if (!rule || client.egress) return {};
  const launch = client.localBrowserLaunchOptions;
  if (launch?.cdpUrl || launch?.proxy) {
    throw new ServiceValidationError("job egress", [
      {
        path: [],
        message: `the job's egress guard needs a browser it launches without a proxy of its own, and this one has ${launch.cdpUrl ? "cdpUrl" : "a proxy"}: drop it, or turn the guard off with egress: false or JOB_EGRESS=off`,
      },
    ]);
  }
  return { egress: { refuse: [...rule.refuse], allowHosts: [...(rule.allowHosts ?? [])] } };
}
