/**
 * The service's own refusals, each with the status it answers with and a code of its own (the
 * `code` of the answer's `error`, the metrics' `code` label, docs/guide/operations.md).
 */
import { ServiceError } from "../errors.js";

/** A session that is not there, or not the caller's project's: the same 404 either way. */
export class SessionNotFound extends ServiceError {
  override name = "SessionNotFound";
  static override readonly code = "SESSION_NOT_FOUND";
}

/** Another operation of the session is under way: 409. */
export class SessionBusyError extends ServiceError {
  override name = "SessionBusyError";
  static override readonly code = "SESSION_BUSY";
}

/** No room for another session: 503. */
export class ServiceFull extends ServiceError {
  override name = "ServiceFull";
  static override readonly code = "SERVICE_FULL";
}

/** The service is stopping (SIGTERM): it takes no new work, 503. */
export class ServiceStopping extends ServiceError {
  override name = "ServiceStopping";
  static override readonly code = "SERVICE_STOPPING";
}

/** The session's owner (another instance, in shared mode) stopped: its browser is gone, 410. */
export class SessionGone extends ServiceError {
  override name = "SessionGone";
  static override readonly code = "SESSION_GONE";
}

/** The instance that holds the session cannot be reached or located now: 502, try again. */
export class OwnerUnreachable extends ServiceError {
  override name = "OwnerUnreachable";
  static override readonly code = "OWNER_UNREACHABLE";
}

/** The browser a caller named (`browser.cdpUrl`) did not answer: 502, the caller's to check. */
export class CallerBrowserUnreachable extends ServiceError {
  override name = "CallerBrowserUnreachable";
  static override readonly code = "CALLER_BROWSER_UNREACHABLE";
}

/** A feature this instance cannot give in shared mode yet (contexts): 501. */
export class NotInSharedMode extends ServiceError {
  override name = "NotInSharedMode";
  static override readonly code = "NOT_IN_SHARED_MODE";
}
