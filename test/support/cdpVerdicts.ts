/** The CDP policy's verdicts, judged for one made-up session, as the policy tests read them. */
import { expect } from "vitest";
import { type CdpScope, judgeCdpCommand } from "../../lib/service/cdpPolicy.js";

export const scope: CdpScope = {
  downloadsDir: "/srv/wayfarer/s1/browser/downloads",
  filesDir: "/srv/wayfarer/s1/browser",
};

export const judge = (method: string, params?: unknown) => judgeCdpCommand(method, params, scope);

function label(method: string, params: unknown): string {
  try {
    return `${method} ${JSON.stringify(params)?.slice(0, 200)}`;
  } catch {
    return method;
  }
}

export function expectRefused(method: string, params: unknown, why: string | RegExp) {
  const verdict = judge(method, params);
  expect(verdict, label(method, params)).toMatchObject({
    allow: false,
  });
  const message = verdict.allow ? "" : verdict.message;
  expect(message.startsWith(`Wayfarer refuses ${method}: `)).toBe(true);
  expect(message).toMatch(why);
}

export function expectPassed(method: string, params?: unknown) {
  expect(judge(method, params), label(method, params)).toEqual({ allow: true });
}
