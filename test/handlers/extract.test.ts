import { describe, expect, it } from "vitest";
import {
  Client,
  MissingLLMConfigurationError,
  ServiceNotInitializedError,
  ServiceTimeoutError,
  ServiceValidationError,
  XPathResolutionError,
} from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { snapshotOf } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

describe("extract() and extract(options)", () => {
  it("returns the whole outline of the active page as { pageText }", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const result = await client.extract();
    expect(Object.keys(result)).toEqual(["pageText"]);
    expect(result.pageText).toBe((await snapshotOf(client)).text);
    expect(result.pageText).toContain('heading "Checkout form"');
    // Every extract form is recorded, this one too.
    expect((await client.history).at(-1)).toMatchObject({
      method: "extract",
      parameters: {},
      result: { pageText: result.pageText },
    });
  });

  it("honours selector, ignoreSelectors and page", async () => {
    const client = await clients.open();
    const first = client.context.activePage()!;
    await first.goto(server.url("outline/form.html"));
    const second = await client.context.newPage();
    await second.goto(server.url("basic.html"));
    // The active page is now the second one; `page` picks the first.
    expect((await client.extract()).pageText).toContain('heading "Basic"');
    const scoped = await client.extract({ page: first, selector: "//nav" });
    // A scoped outline still names its page first.
    expect(scoped.pageText.split("\n").map((l) => l.trim())).toEqual([
      'document "Form fixture"',
      'navigation "Main"',
      '[1] link "Home"',
      '[2] link "Help"',
    ]);
    const pruned = await client.extract({ page: first.playwrightPage, ignoreSelectors: ["main"] });
    expect(pruned.pageText).toContain("Footer words");
    expect(pruned.pageText).not.toContain("Checkout");
  });

  it("refuses bad options, naming the field", async () => {
    const client = await clients.open();
    const cases: [unknown, string][] = [
      [{ ignoreSelectors: "main" }, "extract.options.ignoreSelectors"],
      [{ selector: "" }, "extract.options.selector"],
      [{ timeout: 0 }, "extract.options.timeout"],
      [{ selectr: "//main" }, "selectr"],
      ["", "extract"],
    ];
    for (const [options, field] of cases) {
      const error = await failure(client.extract(options as never));
      expect(error.message, JSON.stringify(options)).toContain(field);
      if (options !== "") expect(error).toBeInstanceOf(ServiceValidationError);
    }
    const notOurs = { playwrightPage: {} };
    expect((await failure(client.extract({ page: notOurs }))).message).toContain("options.page");
  });

  it("is bounded by its timeout, and says what it waited for", async () => {
    const client = await clients.open({ domSettleTimeout: 30_000 });
    await client.context.activePage()!.goto(server.url("outline/busy.html"));
    const error = await failure(client.extract({ timeout: 300 }));
    expect(error).toBeInstanceOf(ServiceTimeoutError);
    expect(error.message).toMatch(
      /^extract: 300 ms passed waiting for the page outline \(steps: settle/,
    );
  });

  it("raises the reference's error for a scope that is not there", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("basic.html"));
    expect(await failure(client.extract({ selector: "//aside" }))).toBeInstanceOf(
      XPathResolutionError,
    );
  });

  it("needs init, and a model for the instruction forms", async () => {
    const client = new Client({ env: "LOCAL", disablePino: true, verbose: 0 });
    expect(await failure(client.extract())).toBeInstanceOf(ServiceNotInitializedError);
    const ready = await clients.open();
    const error = await failure(ready.extract("the price"));
    expect(error).toBeInstanceOf(MissingLLMConfigurationError);
  });
});
