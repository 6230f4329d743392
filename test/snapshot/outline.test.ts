import { describe, expect, it } from "vitest";
import { useClients } from "../support/clients.js";
import {
  expectIdsResolve,
  expectVisibleTextIn,
  linesById,
  refsIn,
  snapshotOf,
} from "../support/outline.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();

describe("outline of a form", () => {
  async function openForm() {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/form.html"));
    await page.playwrightPage.fill("#password", "hunter2-very-secret");
    return client;
  }

  it("gives every interactive element an id that resolves to it, and shows every visible text", async () => {
    const client = await openForm();
    const snapshot = await snapshotOf(client);
    await expectIdsResolve(client, snapshot, refsIn("outline/form.html"));
    await expectVisibleTextIn(client, snapshot);
  });

  it("states what matters: values, checked, selected, disabled, expanded, required", async () => {
    const client = await openForm();
    const lines = [...linesById(await snapshotOf(client)).values()];
    const line = (start: string) => lines.find((l) => l.includes(start)) ?? "";
    expect(line('textbox "Email"')).toContain('value="ada@example.test" required');
    expect(line('combobox "Country"')).toContain('value="Germany"');
    expect(line('checkbox "Subscribe"')).toContain("checked");
    expect(line('radio "Fast"')).toContain("checked");
    expect(line('radio "Slow"')).not.toContain("checked");
    expect(line('button "Later"')).toContain("disabled");
    expect(line('combobox "Size"')).toContain("expanded");
    expect(line('button "More"')).toContain("collapsed");
    expect(line('option "Medium"')).toContain("selected");
    expect(line('textbox "Notes"')).toContain('value="Leave at the door"');
    expect(line("scrollable")).toMatch(/^\[\d+\] scrollable$/);
    expect(line('textbox "Editor"')).toContain('value="Editable text"');
  });

  it("lists the options of selects under them, the chosen ones marked", async () => {
    const client = await openForm();
    const text = (await snapshotOf(client)).text;
    expect(text).toMatch(
      /\[\d+\] combobox "Country" value="Germany"\n\s+option "France"\n\s+option "Germany" selected\n\s+option "Italy"/,
    );
    expect(text).toMatch(
      /listbox "Extras"\n\s+option "Gift wrap" selected\n\s+option "Express"\n\s+option "Insurance" selected/,
    );
  });

  it("never shows a password, or a card code, only that they are filled", async () => {
    const client = await openForm();
    const snapshot = await snapshotOf(client);
    expect(snapshot.text).not.toContain("hunter2");
    expect(snapshot.text).not.toContain("321");
    expect(snapshot.text).toMatch(/\[\d+\] textbox "Password" filled/);
    expect(snapshot.text).toMatch(/\[\d+\] textbox "Card code" filled/);
    // A field named as a password stays masked after a "show password" toggle made it text.
    expect(snapshot.text).not.toContain("shown-secret-value");
    expect(snapshot.text).toMatch(/\[\d+\] textbox "Repeat password" filled/);
    const page = client.context.activePage()!;
    await page.evaluate("document.getElementById('password').type = 'text'");
    const toggled = await snapshotOf(client);
    expect(toggled.text).not.toContain("hunter2");
    expect(toggled.text).toMatch(/\[\d+\] textbox "Password" filled/);
  });

  it("leaves out what is not rendered, and keeps words out of the outline once they name something", async () => {
    const client = await openForm();
    const { text } = await snapshotOf(client);
    for (const hidden of [
      "HIDDEN-LABEL-PART",
      "HIDDEN-DISPLAY",
      "HIDDEN-VISIBILITY",
      "HIDDEN-ATTRIBUTE",
      "HIDDEN-INPUT-VALUE",
      "HIDDEN-IN-DETAILS",
      "Ghost",
    ]) {
      expect(text).not.toContain(hidden);
    }
    // The label "Email" names the textbox; it is not repeated as a line of its own.
    expect(text.match(/Email/g)).toHaveLength(1);
    expect(text).toMatch(/\[\d+\] link "Card title Card text"/);
    expect(text).toContain("Item | Price");
    expect(text).toContain("Tea | $3");
    expect(text).toContain('img "Logo picture"');
    expect(text).toContain("Fill in every field, then press Send.");
  });

  it("maps link ids to their absolute URLs", async () => {
    const client = await openForm();
    const snapshot = await snapshotOf(client);
    const ids = linesById(snapshot);
    const idOf = (name: string) => [...ids].find(([, l]) => l.includes(`link "${name}"`))![0];
    expect(snapshot.urls[idOf("Home")]).toBe(`${server.origin}/home`);
    expect(snapshot.urls[idOf("Help")]).toBe(`${server.origin}/outline/help.html?q=1`);
    expect(Object.keys(snapshot.urls)).toHaveLength(3);
    // The outline names ids, never URLs.
    expect(snapshot.text).not.toContain("help.html");
  });
});

describe("odd content", () => {
  it("keeps pre line breaks, skips fallback content, escapes id-like text, groups options, names by CSS, marks what is too deep", async () => {
    const client = await clients.open();
    await client.context.activePage()!.goto(server.url("outline/odd.html"));
    const snapshot = await snapshotOf(client);
    const { text } = snapshot;
    expect(text).toMatch(/^first line\nsecond line$/m);
    for (const fallback of ["CANVAS-FALLBACK", "fallback button", "VIDEO-FALLBACK", "Too deep"]) {
      expect(text).not.toContain(fallback);
    }
    // Page text that looks like an id line is escaped; the only [1] is a real element.
    expect(text).toContain('\\[1] button "Pay now"');
    expect(text.match(/^\s*\[1\] /gm)).toHaveLength(1);
    expect(text).toMatch(
      /combobox "Region" value="France"\n\s+group "Europe"\n\s+option "France" selected\n\s+group "Asia"\n\s+option "Japan" disabled/,
    );
    expect(text).toMatch(/\[\d+\] button "Close"/);
    expect(text).toContain("(more content nested too deep to show)");
    await expectIdsResolve(client, snapshot, refsIn("outline/odd.html"));
  });
});

describe("a page that fights back", () => {
  it("cannot break the capture by replacing built-ins, and sees nothing of it", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("outline/hostile.html"));
    // Read as one string: the page broke what would carry an array back.
    const globals = async () => String(await page.evaluate("seenGlobals().join(' ')")).split(" ");
    const before = await globals();
    const mutations = await page.evaluate("mutationsSeen");
    const snapshot = await snapshotOf(client, { ignoreSelectors: ["h1"] });
    expect(snapshot.text).toMatch(/\[1\] button "Still here"\n\[2\] button "Closed and hostile"/);
    // The ignored heading says what the title says: only the title line has those words.
    expect(snapshot.text.split("\n")[0]).toBe('document "Hostile page"');
    expect(snapshot.lines.map((l) => l.text).join("\n")).not.toContain("Hostile page");
    const after = await globals();
    // No global of ours is left for the page to find, and the DOM was never touched.
    expect(after.filter((g) => !before.includes(g))).toEqual([]);
    expect(await page.evaluate("mutationsSeen")).toBe(mutations);
  });

  it("reads a container of 200,000 children, which once overflowed the stack", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    await page.goto(server.url("basic.html"));
    await page.evaluate(() => {
      const wide = document.createElement("div");
      wide.innerHTML = `${"<span>w</span> ".repeat(100_000)}${"<p>q</p>".repeat(100_000)}`;
      document.body.append(wide);
    });
    const { pageText } = await client.extract();
    expect(pageText).toContain("w w w");
    expect(pageText.match(/^q$/gm)?.length).toBe(100_000);
  });
});

describe("shadow roots", () => {
  it("finds closed roots a count of elements could miss: on a plain element, of text alone in a custom element, in a same-origin frame, and one attached after a read", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    const cases = {
      plain: "Plain closed",
      badge: "Badge text",
      frame: 'button "Closed in srcdoc"',
    };
    for (const [name, shown] of Object.entries(cases)) {
      await page.goto(server.url(`outline/shadow-census.html?${name}`));
      await page.playwrightPage.waitForFunction(
        () =>
          (document.getElementById("inner") as HTMLIFrameElement).contentDocument?.body
            ?.childElementCount,
      );
      const text = (await snapshotOf(client)).text;
      expect(text).toContain(shown);
      expect(text).toContain("Light text with a < sign");
      for (const other of Object.values(cases))
        if (other !== shown) expect(text).not.toContain(other);
    }
    // A root attached to a new plain element once the page was read: the next read has it.
    await page.evaluate(() => {
      const late = document.createElement("div");
      document.body.append(late);
      late.attachShadow({ mode: "closed" }).innerHTML = "<i>Attached late</i>";
    });
    expect((await snapshotOf(client)).text).toContain("Attached late");
  });

  it("goes into open and closed roots (nested, declarative) and slots, with selectors that reach each element", async () => {
    const client = await clients.open();
    const page = client.context.activePage()!;
    for (const file of ["shadow.html", "outline/shadow-slots.html"]) {
      await page.goto(server.url(file));
      const snapshot = await snapshotOf(client);
      const names = [...linesById(snapshot).values()].map((l) => l.replace(/^\[\d+\] /, ""));
      if (file === "shadow.html") {
        expect(names).toEqual([
          'button "Open"',
          'button "Second"',
          'button "Nested"',
          'button "Closed"',
          "textbox",
          'button "Declared"',
        ]);
        for (const [id, selector] of Object.entries(snapshot.selectors)) {
          const expected = names[Number(id) - 1]!.match(/"(.*)"/)?.[1];
          if (expected) expect(await page.deepLocator(selector).textContent()).toBe(expected);
        }
      } else {
        await expectIdsResolve(client, snapshot, refsIn(file));
        expect(snapshot.text).toContain('heading "Slotted title"');
        expect(snapshot.text).toContain("Light of inner");
        expect(snapshot.text).not.toContain("Fallback title");
      }
    }
  });
});
