/** The OpenAPI paths of a project's contexts (lib/service/routes/contexts.ts). */
import { ContextDeletedSchema, ContextSchema } from "./answerSchemas.js";
import { KEYED_FAILURES, plain } from "./openapiParts.js";

const ContextId = {
  name: "id",
  in: "path",
  required: true,
  description: "The context's id, as POST /v1/contexts answered it.",
  schema: { type: "string", format: "uuid" },
};

const EXAMPLE = {
  id: "5a0f3c52-8d1e-4b8e-9d0a-3f6b1c2d4e5f",
  projectId: "alpha",
  createdAt: "2026-11-29T08:00:00.000Z",
  updatedAt: "2026-11-29T08:00:04.000Z",
  size: 412_331,
};

export function contextPaths() {
  return {
    "/v1/contexts": {
      post: plain(
        {
          operationId: "createContext",
          summary: "A new, empty context of the key's project",
          description:
            "A browser profile kept between sessions (cookies, localStorage, IndexedDB, session storage), encrypted at rest with a key of the service for this project. Start a session with it by `browserbaseSessionCreateParams.browserSettings.context: {id, persist}`; with `persist: true` the session's profile is saved back when it ends. A project keeps 100 at most.",
          tag: "contexts",
        },
        ContextSchema,
        { ...EXAMPLE, size: 0 },
        { failures: [...KEYED_FAILURES, 501] },
      ),
    },
    "/v1/contexts/{id}": {
      parameters: [ContextId],
      get: plain(
        { operationId: "getContext", summary: "A context of the key's project", tag: "contexts" },
        ContextSchema,
        EXAMPLE,
        { failures: [...KEYED_FAILURES, 404, 501] },
      ),
      delete: plain(
        {
          operationId: "deleteContext",
          summary: "Delete a context (refused while a session holds it)",
          tag: "contexts",
        },
        ContextDeletedSchema,
        { id: EXAMPLE.id, deleted: true },
        { failures: [...KEYED_FAILURES, 404, 409, 501] },
      ),
    },
  };
}
