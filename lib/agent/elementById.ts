/**
 * An `[id]` of the latest outline the model read, turned into the Action it asks for and the
 * identity its element had then. Acting checks that the element found there now is still that
 * one; an id that no longer holds is the model's cue to read the page again.
 */
import type { ElementIdentity } from "../api/operations.js";
import type { Action, Variables } from "../options.js";
import { hideIdentity } from "../variables.js";
import type { SeenOutline } from "./pageOutline.js";

export interface ElementById {
  /** The id as the outline shows it, without brackets. */
  id: string;
  action: Action;
  /** What the element was when the outline was read (typed values as their %name%). */
  expect: ElementIdentity;
  /** Its outline line, without the id: `button "Search"`. */
  line: string;
}

/** The id's element, or an error for the model saying what to do instead. */
export function elementById(
  seen: SeenOutline | undefined,
  id: string,
  method: NonNullable<Action["method"]>,
  value: string | undefined,
  variables: Variables | undefined,
): ElementById {
  const key = id
    .trim()
    .replace(/^\[|\]$/g, "")
    .trim();
  if (!seen) {
    throw new StaleIdError(
      `there is no outline to take [${key}] from: read the page with outline first, or name the element in words`,
    );
  }
  const selector = Object.hasOwn(seen.selectors, key) ? seen.selectors[key] : undefined;
  const identity = Object.hasOwn(seen.identities, key) ? seen.identities[key] : undefined;
  if (!selector || !identity) {
    throw new StaleIdError(
      `[${key}] is not an id of the latest outline: use an id it shows, or read the page again with outline`,
    );
  }
  const expect = hideIdentity(identity, variables);
  // Its line as the model read it (typed values masked); out of the part shown, its identity
  // with typed values hidden.
  const line =
    seen.text.match(new RegExp(`^\\s*\\[${key}\\] (.*)$`, "m"))?.[1] ??
    `${expect.role} ${JSON.stringify(expect.name)}`;
  return {
    id: key,
    action: {
      selector,
      description: line,
      method,
      arguments: value === undefined ? [] : [value],
    },
    expect,
    line,
  };
}

/**
 * What an id names, for the loop check: ids are numbered afresh in every outline, so the same
 * id on two pages is two calls, and the same element under two ids is one.
 */
export function elementKey(seen: SeenOutline | undefined, id: unknown): string | undefined {
  if (id === undefined || id === null || !seen) return undefined;
  const key = String(id)
    .trim()
    .replace(/^\[|\]$/g, "")
    .trim();
  if (!Object.hasOwn(seen.selectors, key)) return undefined;
  return `${seen.selectors[key]} ${JSON.stringify(seen.identities[key] ?? null)}`;
}

/** The id names nothing the model can act on any more: read the page again. */
export class StaleIdError extends Error {
  override name = "StaleIdError";
}

/** The element found at the id's place is not the one shown: the page changed. */
export function staleMessage(id: string, line: string, found: string): string {
  return `[${id}] is no longer the element the outline showed (${line}; ${found}): nothing was done. The page changed: read it again with outline, and act on the id it shows now.`;
}

/**
 * What stands at a stale id's place, said so that a change of surroundings alone (a counter,
 * a message next to it) reads as one, with the way out when it keeps changing.
 */
export function foundInstead(
  expected: ElementIdentity,
  seen: ElementIdentity | null | undefined,
): string {
  if (!seen) return "nothing is there now";
  if (seen.role === expected.role && seen.name === expected.name) {
    return `the same ${seen.role} is there, but the text around it changed from "${expected.context.slice(0, 80)}" to "${seen.context.slice(0, 80)}"; if it keeps changing, name the element in words`;
  }
  return `now ${seen.role} "${seen.name}" is there`;
}
