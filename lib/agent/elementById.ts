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
  const key = id.replace(/^\[|\]$/g, "").trim();
  if (!seen) {
    throw new StaleIdError(
      `there is no outline to take [${key}] from: read the page with outline first, or name the element in words`,
    );
  }
  const selector = seen.selectors[key];
  const identity = seen.identities[key];
  if (!selector || !identity) {
    throw new StaleIdError(
      `[${key}] is not an id of the latest outline: use an id it shows, or read the page again with outline`,
    );
  }
  const line =
    seen.text.match(new RegExp(`^\\s*\\[${key}\\] (.*)$`, "m"))?.[1] ??
    `${identity.role} ${JSON.stringify(identity.name)}`;
  return {
    id: key,
    action: {
      selector,
      description: line,
      method,
      arguments: value === undefined ? [] : [value],
    },
    expect: hideIdentity(identity, variables),
    line,
  };
}

/** The id names nothing the model can act on any more: read the page again. */
export class StaleIdError extends Error {
  override name = "StaleIdError";
}

/** The element found at the id's place is not the one shown: the page changed. */
export function staleMessage(id: string, line: string, found: string): string {
  return `[${id}] is no longer the element the outline showed (${line}; ${found}): nothing was done. The page changed: read it again with outline, and act on the id it shows now.`;
}
