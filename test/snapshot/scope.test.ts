import { describe, expect, it } from "vitest";
import {
  ContentFrameNotFoundError,
  ServiceShadowRootMissingError,
  XPathResolutionError,
} from "../../lib/index.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { expectIdsResolve, snapshotOf } from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

async function openOuter() {
  const client = await clients.open();
  await client.context
    .activePage()!
    .goto(
      `${server.url("outline/frames-outer.html")}?other=${encodeURIComponent(server.otherSite)}`,
    );
  return client;
}

/**
 * The lines of `text` below its title line, without ids: what a scoped or pruned outline is
 * compared on.
 */
const bare = (text: string) =>
  text
    .split("\n")
    .slice(1)
    .map((l) => l.replace(/\[\d+\] /, "").trim());

describe("selector: one subtree", () => {
  it("outlines only the element's subtree, with selectors still absolute", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const whole = await snapshotOf(client);
    const form = await snapshotOf(client, { selector: "//form" });
    // The page's title first, then the form.
    expect(form.text.split("\n").slice(0, 2)).toEqual([
      'document "Form fixture"',
      'form "Checkout"',
    ]);
    const start = bare(whole.text).indexOf('form "Checkout"');
    const end = bare(whole.text).indexOf('combobox "Size" expanded');
    // Exactly the form's lines, one level up.
    expect(bare(form.text)).toEqual(bare(whole.text).slice(start, end));
    await expectIdsResolve(client, form, [
      "Email",
      "Password",
      "Card code",
      "Country",
      "Extras",
      "Subscribe",
      "Slow",
      "Fast",
      "Notes",
      "Phone",
      "Repeat password",
      "Send",
      "Later",
    ]);
  });

  it("reaches into frames and shadow roots, also in CSS with >> hops", async () => {
    const client = await openOuter();
    const cross = await snapshotOf(client, { selector: "xpath=/html/body/iframe[2]/html/body" });
    // A scope inside a frame: the title is still the page's, not the frame's.
    expect(cross.text.split("\n")[0]).toBe('document "Nested frames"');
    expect(bare(cross.text)).toEqual([
      "Cross-site text",
      'button "Cross button"',
      "Closed shadow text",
      'button "Closed in frame"',
      'iframe "Cross child"',
      "Deep text",
      'link "Deep link"',
    ]);
    await expectIdsResolve(client, cross, ["Cross button", "Closed in frame", "Deep link"]);
    const closed = await snapshotOf(client, { selector: "#cross >> closed-card" });
    expect(bare(closed.text)).toEqual(["Closed shadow text", 'button "Closed in frame"']);
    const inShadow = await snapshotOf(client, {
      selector: "xpath=/html/body/iframe[1]/html/body/open-card//button",
    });
    expect(bare(inShadow.text)).toEqual(['button "Shadow in frame"']);
    await expectIdsResolve(client, inShadow, ["Shadow in frame"]);
  });

  it("fails with the reference's errors when the scope cannot be found", async () => {
    const client = await openOuter();
    expect(await failure(snapshotOf(client, { selector: "//nothing-here" }))).toBeInstanceOf(
      XPathResolutionError,
    );
    expect(await failure(snapshotOf(client, { selector: "//iframe" }))).toBeInstanceOf(
      XPathResolutionError,
    );
    expect(await failure(snapshotOf(client, { selector: "h1 >> button" }))).toBeInstanceOf(
      ContentFrameNotFoundError,
    );
    const noRoot = await failure(snapshotOf(client, { selector: "/html/body/h1//button" }));
    expect(noRoot).toBeInstanceOf(ServiceShadowRootMissingError);
    expect((noRoot as Error).message).toContain("/html/body/h1");
  });
});

describe("ignoreSelectors: every match left out", () => {
  it("removes each match with its descendants and nothing else", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/form.html"));
    const whole = bare((await snapshotOf(client)).text);
    const pruned = await snapshotOf(client, {
      ignoreSelectors: ["//nav", "select", "//table"],
    });
    // The banner held only the navigation: an empty landmark is not shown.
    const expected = whole.filter(
      (l) =>
        !/^(banner|navigation|link "Home"|link "Help"|combobox "Country"|listbox "Extras"|option|table|Item|Tea)/.test(
          l,
        ) ||
        l.startsWith('option "Small"') ||
        l.startsWith('option "Medium"'),
    );
    expect(bare(pruned.text)).toEqual(expected);
  });

  it("works inside frames and shadow roots", async () => {
    const client = await openOuter();
    const pruned = await snapshotOf(client, {
      ignoreSelectors: [
        "#cross >> closed-card",
        "xpath=/html/body/iframe[1]/html/body/open-card//button",
        "xpath=/html/body/iframe[1]",
      ],
    });
    expect(pruned.text).not.toContain("Closed in frame");
    expect(pruned.text).not.toContain("Closed shadow text");
    expect(pruned.text).not.toContain("Same-site text");
    expect(pruned.text).toContain("Cross button");
    expect(pruned.text).toContain("Deep link");
    const shadowOnly = await snapshotOf(client, {
      ignoreSelectors: ["xpath=/html/body/iframe[1]/html/body/open-card//button"],
    });
    expect(shadowOnly.text).toContain("Open shadow text");
    expect(shadowOnly.text).not.toContain("Shadow in frame");
    expect(shadowOnly.text).toContain("Same button");
  });

  it("ignores a selector that matches nothing", async () => {
    const client = await openOuter();
    const whole = await snapshotOf(client);
    const same = await snapshotOf(client, { ignoreSelectors: ["//nothing-here", "#nope"] });
    expect(same.text).toBe(whole.text);
  });
});
