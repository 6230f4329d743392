/**
 * A per-call model's credentials are secrets from the call's start: history never keeps them,
 * also when the call makes no model request (an Action, a plain extract).
 */
import { describe, expect, it } from "vitest";
import { useClients } from "../support/clients.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
const KEY = "sk-per-call-secret-key-0a1b2c3d";
const URL_TOKEN = "url-token-secret-4e5f6a7b";
/** Under a name that says nothing: only its opaque length tells it is a credential. */
const HEADER = "hdrsecret0123456789abcdef0123456789";

describe("history and a per-call model", () => {
  it("keeps no key, URL token or credential header of a call's own model", async () => {
    const client = await clients.openOn(server.url("basic.html"));
    const model = {
      modelName: "openai/gpt-4.1-mini",
      apiKey: KEY,
      baseURL: `http://127.0.0.1:9/v1?token=${URL_TOKEN}`,
      headers: { "x-team": HEADER },
    };
    const [action] = await client.observe();
    await client.act(action!, { model });
    await client.extract({ model });
    const history = JSON.stringify(await client.history);
    expect(history).toContain("gpt-4.1-mini");
    for (const secret of [KEY, URL_TOKEN, HEADER]) expect(history).not.toContain(secret);
  });
});
