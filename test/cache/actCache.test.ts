/**
 * act with cacheDir, on real Chromium with the model kit: the second run makes no model call;
 * other variable values share the entry; an element that changed is never clicked, heals through
 * the model and is written back; with no model to heal, a clear error.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CacheStore } from "../../lib/cache/cacheStore.js";
import type { Client, LogLine } from "../../lib/index.js";
import { Logger } from "../../lib/log.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { idOfLine, promptOf, useModelServer } from "../support/llm/modelServer.js";
import { openaiResponses } from "../support/llm/openai.js";
import { shopModel } from "../support/llm/shopModel.js";
import { makeReadOnly } from "../support/readOnlyFolder.js";
import { useStaticServer } from "../support/staticServer.js";
import { useTempFolders } from "../support/tempFolders.js";

const server = useStaticServer();
const tempFolder = useTempFolders();
const model = useModelServer();
const clients = useClients();
const MODEL = { modelName: "openai/gpt-4.1-mini", apiKey: "sk-cache-test-key-123456" };

const cart = (client: Client) =>
  client.context.activePage()!.evaluate(() => document.getElementById("cart")!.textContent);

/** Black tea's item moved to the end: its old place now holds White tea's button. */
const moveBlackTeaLast = (client: Client) =>
  client.context.activePage()!.evaluate(() => {
    const black = [...document.querySelectorAll("li")].find((li) =>
      li.textContent!.includes("Black"),
    )!;
    black.parentElement!.append(black);
  });

describe("the action cache", () => {
  it("records on a miss and replays with no model call", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    const first = await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir });
    const recorded = await first.act("add black tea to the cart");
    expect(recorded.success).toBe(true);
    expect(await cart(first)).toBe("Cart: black");
    expect(model.requests()).toHaveLength(1);
    const [file] = readdirSync(cacheDir);
    const entry = JSON.parse(readFileSync(join(cacheDir, file!), "utf8"));
    expect(entry.steps[0].identity).toMatchObject({ role: "button", name: "Add to cart" });
    expect(entry.steps[0].identity.context).toContain("Black tea");

    const lines: LogLine[] = [];
    const second = await clients.openOn(server.url("outline/shop.html"), {
      model: MODEL,
      cacheDir,
      verbose: 1,
      logger: (l: LogLine) => lines.push(l),
    });
    const replayed = await second.act("add black tea to the cart");
    expect(replayed.success).toBe(true);
    expect(await cart(second)).toBe("Cart: black");
    expect(model.requests()).toHaveLength(1);
    expect((await second.metrics).actPromptTokens).toBe(0);
    expect((await second.history).at(-1)).toMatchObject({
      method: "act",
      result: { cacheHit: true },
    });
    expect(lines.map((l) => l.message)).toContain("act replayed from the cache, no model call");
  });

  it("shares one entry between runs with other variable values, and never stores a value", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(
      openaiResponses((r) => ({
        elements: [
          {
            elementId: idOfLine(promptOf(r), 'textbox "Password"'),
            description: "the Password field",
            method: "fill",
            arguments: ["%password%"],
          },
        ],
      })),
    );
    const typed = async (value: string) => {
      const client = await clients.openOn(server.url("outline/form.html"), {
        model: MODEL,
        cacheDir,
      });
      const result = await client.act("type %password% into the Password field", {
        variables: { password: value },
      });
      expect(result.success).toBe(true);
      return client.context
        .activePage()!
        .evaluate(() => (document.getElementById("password") as HTMLInputElement).value);
    };
    expect(await typed("first-secret-1")).toBe("first-secret-1");
    expect(await typed("second-secret-2")).toBe("second-secret-2");
    expect(model.requests()).toHaveLength(1);
    const files = readdirSync(cacheDir);
    expect(files).toHaveLength(1);
    const text = readFileSync(join(cacheDir, files[0]!), "utf8");
    expect(text).toContain("%password%");
    expect(text).not.toMatch(/first-secret|second-secret/);
  });

  it("never clicks another item's button: the changed element heals and is written back", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    const first = await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir });
    await first.act("add black tea to the cart");
    const recorded = readFileSync(join(cacheDir, readdirSync(cacheDir)[0]!), "utf8");

    const second = await clients.openOn(server.url("outline/shop.html"), {
      model: MODEL,
      cacheDir,
    });
    await moveBlackTeaLast(second);
    const healed = await second.act("add black tea to the cart");
    expect(healed.success).toBe(true);
    // White tea's button stood at the recorded place; Black tea's was clicked.
    expect(await cart(second)).toBe("Cart: black");
    expect(model.requests()).toHaveLength(2);
    const rewritten = readFileSync(join(cacheDir, readdirSync(cacheDir)[0]!), "utf8");
    expect(JSON.parse(rewritten).steps[0].action.selector).not.toBe(
      JSON.parse(recorded).steps[0].action.selector,
    );

    // The healed entry replays on the changed page with no model call.
    const third = await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir });
    await moveBlackTeaLast(third);
    await third.act("add black tea to the cart");
    expect(await cart(third)).toBe("Cart: black");
    expect(model.requests()).toHaveLength(2);
  });

  it("replays from a committed cacheDir mounted read-only; a healed entry goes to the overlay, read first", async (t) => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    await (await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir })).act(
      "add black tea to the cart",
    );
    const [file] = readdirSync(cacheDir);
    const committed = readFileSync(join(cacheDir, file!), "utf8");
    const undo = makeReadOnly(cacheDir);
    if (!undo) return t.skip("neither a read-only mount nor a folder mode can stop this user");
    const overlay = new CacheStore(cacheDir, new Logger({ verbose: 0, disablePino: true })).overlay;
    try {
      expect(() => writeFileSync(join(cacheDir, "probe"), "x")).toThrow(/EROFS|EACCES/);
      const lines: LogLine[] = [];
      const healing = await clients.openOn(server.url("outline/shop.html"), {
        model: MODEL,
        cacheDir,
        verbose: 1,
        logger: (l: LogLine) => lines.push(l),
      });
      await moveBlackTeaLast(healing);
      expect((await healing.act("add black tea to the cart")).success).toBe(true);
      expect(await cart(healing)).toBe("Cart: black");
      expect(lines.map((l) => l.message)).toContain(
        "cacheDir cannot be written: new entries go to the overlay",
      );
      expect(readdirSync(overlay)).toEqual([file]);
      expect(readFileSync(join(cacheDir, file!), "utf8")).toBe(committed);

      // The overlay's healed entry is read before the committed one: no model call.
      const third = await clients.openOn(server.url("outline/shop.html"), {
        model: MODEL,
        cacheDir,
      });
      await moveBlackTeaLast(third);
      await third.act("add black tea to the cart");
      expect(await cart(third)).toBe("Cart: black");
      expect(model.requests()).toHaveLength(2);
    } finally {
      undo();
      rmSync(overlay, { recursive: true, force: true });
    }
  });

  it("treats an entry of another version as a miss: the model is asked, the entry rewritten", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    await (await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir })).act(
      "add black tea to the cart",
    );
    const file = join(cacheDir, readdirSync(cacheDir)[0]!);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), version: 0 }));
    const client = await clients.openOn(server.url("outline/shop.html"), {
      model: MODEL,
      cacheDir,
    });
    expect((await client.act("add black tea to the cart")).success).toBe(true);
    expect(model.requests()).toHaveLength(2);
    expect(JSON.parse(readFileSync(file, "utf8")).version).toBe(1);
  });

  it("with selfHeal off, does nothing on a changed element and says why", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    await (await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir })).act(
      "add black tea to the cart",
    );
    const client = await clients.openOn(server.url("outline/shop.html"), {
      model: MODEL,
      cacheDir,
      selfHeal: false,
    });
    await moveBlackTeaLast(client);
    const result = await client.act("add black tea to the cart");
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/not the one recorded/);
    expect(await cart(client)).toBe("Cart: empty");
    expect(model.requests()).toHaveLength(1);
  });

  it("a removed element with no model configured: a clear error, nothing clicked", async () => {
    const cacheDir = tempFolder("wayfarer-act-cache-");
    model.use(shopModel());
    await (await clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir })).act(
      "add black tea to the cart",
    );
    // The same model named, but no key for it here (as on a deployment without the key).
    const client = await clients.openOn(server.url("outline/shop.html"), {
      cacheDir,
      model: "openai/gpt-4.1-mini",
    });
    await client.context.activePage()!.evaluate(() => {
      for (const li of document.querySelectorAll("li"))
        if (li.textContent!.includes("Black")) li.remove();
    });
    const error = await failure(client.act("add black tea to the cart"));
    expect(error.message).toMatch(
      /cached element is gone or changed, and there is no model to find it again/,
    );
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(await cart(client)).toBe("Cart: empty");
  });

  it("answers observe from the cache while the elements are the ones recorded, else asks again", async () => {
    const cacheDir = tempFolder("wayfarer-observe-cache-");
    model.use(
      openaiResponses((r) => ({
        elements: [
          {
            elementId: idOfLine(
              promptOf(r).slice(promptOf(r).indexOf('link "Black tea"')),
              'button "Add to cart"',
            ),
            description: "Add to cart, Black tea",
            method: "click",
            arguments: [],
          },
        ],
      })),
    );
    const open = () => clients.openOn(server.url("outline/shop.html"), { model: MODEL, cacheDir });
    const first = await (await open()).observe("the button that adds black tea");
    expect(first).toHaveLength(1);
    expect(model.requests()).toHaveLength(1);

    const again = await open();
    expect(await again.observe("the button that adds black tea")).toEqual(first);
    expect(model.requests()).toHaveLength(1);
    expect((await again.history).at(-1)).toMatchObject({ parameters: { cacheHit: true } });

    // Black tea moved: the recorded selector now names White tea's button; the model is asked.
    const moved = await open();
    await moveBlackTeaLast(moved);
    const found = await moved.observe("the button that adds black tea");
    expect(model.requests()).toHaveLength(2);
    expect(found[0]!.selector).not.toBe(first[0]!.selector);
    await moved.act(found[0]!);
    expect(await cart(moved)).toBe("Cart: black");
  });
});
