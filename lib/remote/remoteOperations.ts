/**
 * The remote environment's operations: what asks a model goes to the service (act, observe,
 * extract, agent runs); what needs none runs here, over the session's CDP connection (the
 * action cache's identity checks, a cached agent run's replay), so a cache hit costs the
 * service nothing.
 */
import type { Operations } from "../engine/engine.js";

export function remoteOperations(service: Operations, here: Operations): Operations {
  return {
    act: (request, control) => service.act(request, control),
    observe: (request, control) => service.observe(request, control),
    extract: (request, control) => service.extract(request, control),
    agentExecute: (request, control) => service.agentExecute(request, control),
    identify: (request) => here.identify(request),
    agentReplay: (request, signal) => here.agentReplay(request, signal),
  };
}
