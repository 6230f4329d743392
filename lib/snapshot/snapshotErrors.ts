/**
 * The reference's errors for what goes wrong in a capture: a scope that is not there (by what
 * the resolver saw), the outline's own page code failing, anything else in processing the DOM.
 */
import {
  ServiceDomProcessError,
  ServiceError,
  ServiceEvalError,
  ServiceIframeError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../errors.js";

/** Thrown when the outline's own page code fails in the page. */
export class PageScriptError extends Error {}

/** The document changed under a capture in a way that calls for starting over. */
export class DocumentChangedError extends Error {}

/** Why a scope selector found nothing, as the reference's error for that case. */
export function missingScope(selector: string, note: string | undefined): ServiceError {
  const noRoot = note?.match(/^xpath=(.*) has no shadow root$/);
  if (noRoot) return new ServiceShadowRootMissingError(`xpath=${noRoot[1]}`);
  const noDocument = note?.match(/^frame (.*) has no document yet$/);
  if (noDocument) {
    return new ServiceIframeError(noDocument[1]!, "its document is not loaded yet; try again");
  }
  return new XPathResolutionError(
    selector,
    note ?? "it matches no element in the page or its frames",
  );
}

export function toSnapshotError(error: unknown): unknown {
  if (error instanceof ServiceError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PageScriptError) return new ServiceEvalError(message, { cause: error });
  return new ServiceDomProcessError(message, { cause: error });
}
