/**
 * The page hooks every engine owner builds the same way: errors scrubbed by its logger's
 * redactor before they are thrown, a failed call's full detail kept for a debug line. Only what
 * a navigation leaves behind differs (the library's history records it; a service's session and
 * the MCP host keep none).
 */
import type { NavigationRecord, PageHooks } from "../browser/page.js";
import type { Logger } from "../log.js";

export function loggedPageHooks(
  logger: Logger,
  onNavigate: (record: NavigationRecord) => void = () => {},
): PageHooks {
  return {
    onNavigate,
    scrub: (error) => logger.redactor.error(error),
    onFailure: (method, detail) => logger.debug("page", `${method} failed`, { detail }),
  };
}
