/**
 * The remote environment's transport: each operation call (JSON text, made by WireOperations)
 * goes to the session's route on the service as a streamed request, and its frames come back as
 * JSON texts. The client's model travels in each call when it says more than its name (a
 * baseURL, headers, a provider), as the 3.7 client sends it: the session knows only the name.
 * The server cache is skipped for a call whose `serverCache` (or the client's) is off.
 */
import type { OperationCall } from "../api/operations.js";
import type { Transport } from "../engine/wireOperations.js";
import { ServiceError } from "../errors.js";
import type { ModelConfiguration } from "../options.js";
import type { ServiceHttp } from "./serviceHttp.js";

export interface RemoteCallSettings {
  http: ServiceHttp;
  /** The session's id, once init() has one. */
  sessionId: () => string;
  /** The client's default for the server cache. */
  serverCache: boolean;
  /** The client's model, when it says more than a name. */
  model: ModelConfiguration | undefined;
}

const STOP_TIMEOUT_MS = 5_000;
const BYPASS = { "browserbase-cache-bypass": "true", "x-cache-bypass": "true" };

export function remoteTransport(settings: RemoteCallSettings): Transport {
  return (text, signal) => {
    const call = JSON.parse(text) as OperationCall;
    const { route, body, cacheOff } = routeOf(call, settings);
    const session = `/sessions/${encodeURIComponent(settings.sessionId())}`;
    return stoppable(signal, settings.http, session, (cut) =>
      settings.http.stream(`${session}/${route}`, body, {
        signal: cut,
        headers: cacheOff ? BYPASS : {},
      }),
    );
  };
}

/**
 * The caller's abort asks the service to stop the run (`/stop`, ours), and the stream is read
 * on to the run's own answer, as a local run answers its result. A service without that route,
 * or one that does not answer it, gets the connection cut instead (it stops a run whose client
 * went away), and the caller gets the abort's reason.
 */
async function* stoppable(
  signal: AbortSignal | undefined,
  http: ServiceHttp,
  session: string,
  open: (cut: AbortSignal) => AsyncIterable<string>,
): AsyncIterable<string> {
  const cut = new AbortController();
  const onAbort = () => {
    http.json("POST", `${session}/stop`, {}, { timeoutMs: STOP_TIMEOUT_MS }).then(
      (data) => {
        if (!(data as { stopped?: unknown })?.stopped) cut.abort(signal?.reason);
      },
      () => cut.abort(signal?.reason),
    );
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  try {
    yield* open(cut.signal);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function routeOf(
  call: OperationCall,
  settings: RemoteCallSettings,
): { route: string; body: unknown; cacheOff: boolean } {
  const model = settings.model;
  switch (call.operation) {
    case "act":
    case "observe":
    case "extract": {
      const request = call.request;
      const options: Record<string, unknown> = { ...request.options };
      if (options.model === undefined && model !== undefined) options.model = model;
      const cache = (options.serverCache as boolean | undefined) ?? settings.serverCache;
      return { route: call.operation, body: { ...request, options }, cacheOff: !cache };
    }
    case "agentExecute": {
      const request = call.request;
      const agentConfig = { ...request.agentConfig };
      if (agentConfig.model === undefined && model !== undefined) agentConfig.model = model;
      return { route: "agentExecute", body: { ...request, agentConfig }, cacheOff: false };
    }
    default:
      // identify and agentReplay run on this side, over the session's CDP connection.
      throw new ServiceError(`${call.operation} does not go to the service.`);
  }
}
