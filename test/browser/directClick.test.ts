/**
 * The click made at once (lib/browser/directClick.ts) keeps what Playwright's checks keep: it
 * acts only on an element that is there, enabled, visible, not animated and on top, and its
 * guard stops a click that would land on another element before the page sees it. Everything
 * else still goes through Playwright's waits: an element covered, moving, disabled or replaced
 * is clicked once it can be, and the element in its way never is.
 */
import type { ElementHandle, Page as PlaywrightPage } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ElementIdentity } from "../../lib/api/operations.js";
import {
  type Aimed,
  aimClickAtXPath,
  clickAimed,
  clickDirectly,
} from "../../lib/browser/directClick.js";
import { identityOfElement } from "../../lib/browser/elementIdentity.js";
import { ServiceTimeoutError } from "../../lib/index.js";
import { withTimeout } from "../../lib/timeout.js";
import { clickPages } from "../support/clickPage.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
const { open, clicks } = clickPages(server, clients);

/** clickDirectly on the element `css` matches, under a 5 s deadline: true when it clicked. */
async function direct(pw: PlaywrightPage, css: string, clickCount?: number): Promise<boolean> {
  const element = (await pw.$(css))!;
  try {
    return await withTimeout("test", 5_000, css, (d) =>
      clickDirectly(pw, pw.mainFrame(), element, { clickCount }, d),
    );
  } finally {
    await element.dispose();
  }
}

const OVERLAY = `<div id="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>`;

describe("a click made at once", () => {
  it("clicks a plain button at its centre, once, with a trusted event", async () => {
    const { pw } = await open(
      `<button id="b" style="position:absolute;left:100px;top:50px;width:80px;height:40px">Go</button>`,
    );
    await pw.evaluate(() =>
      document.getElementById("b")!.addEventListener("click", (e) => {
        (window as unknown as { at: number[] }).at = [e.clientX, e.clientY];
      }),
    );
    expect(await direct(pw, "#b")).toBe(true);
    expect(await clicks(pw)).toEqual({ b: 1 });
    expect(await pw.evaluate(() => (window as unknown as { at: number[] }).at)).toEqual([140, 70]);
  });

  it("finds, checks and aims at an outline XPath in one call, then clicks; no single match is no aim", async () => {
    const { pw } = await open(`<button id="a">A</button> <button id="b">B</button>`);
    const aimed = await aimClickAtXPath(pw, "/html/body/button[2]");
    expect("end" in aimed).toBe(true);
    expect(
      await withTimeout("test", 5_000, "b", (d) => clickAimed(pw, aimed as Aimed, {}, d)),
    ).toBe(true);
    expect(await clicks(pw)).toEqual({ b: 1 });
    expect(await aimClickAtXPath(pw, "/html/body/button")).toEqual({ wait: "no single match" });
    expect(await aimClickAtXPath(pw, "/html/body/nav")).toEqual({ wait: "no single match" });
  });

  it("scrolls an element below the fold into view, then clicks it", async () => {
    const { pw } = await open(`<div style="height:3000px"></div><button id="low">Low</button>`);
    expect(await direct(pw, "#low")).toBe(true);
    expect(await clicks(pw)).toEqual({ low: 1 });
    expect(await pw.evaluate(() => scrollY)).toBeGreaterThan(0);
  });

  it("double-clicks: two clicks and one dblclick", async () => {
    const { pw } = await open(
      `<button id="b" ondblclick="window.dbl = (window.dbl ?? 0) + 1">Twice</button>`,
    );
    expect(await direct(pw, "#b", 2)).toBe(true);
    expect(await clicks(pw)).toEqual({ b: 2 });
    expect(await pw.evaluate(() => (window as unknown as { dbl: number }).dbl)).toBe(1);
  });

  it("leaves its guard behind on no later click", async () => {
    const { pw } = await open(`<button id="a">A</button> <button id="b">B</button>`);
    expect(await direct(pw, "#a")).toBe(true);
    expect(
      await pw.evaluate(() => (window as never)[Symbol.for("wayfarer.directClick")] ?? "gone"),
    ).toBe("gone");
    const box = (await (await pw.$("#b"))!.boundingBox())!;
    await pw.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(await clicks(pw)).toEqual({ a: 1, b: 1 });
  });

  it("counts a click that replaced the document as done, never clicking twice", async () => {
    const { page, pw } = await open(
      `<a id="away" href="${server.url("second.html")}" onclick="sessionStorage.n = Number(sessionStorage.n ?? 0) + 1">Away</a>`,
    );
    await page.click("#away");
    await pw.waitForURL(server.url("second.html"));
    expect(await pw.evaluate(() => sessionStorage.n)).toBe("1");
  });

  it("returns from a click whose handler opens a dialog once the dialog is answered", async () => {
    const { page, pw } = await open(
      `<button id="b" onclick="window.answered = confirm('sure?')">Ask</button>`,
    );
    await page.click("/html/body/button", { timeout: 10_000 });
    expect(await clicks(pw)).toEqual({ b: 1 });
    expect(await pw.evaluate(() => typeof (window as { answered?: boolean }).answered)).toBe(
      "boolean",
    );
  });

  it("does not act on what it cannot vouch for: covered, disabled, animated, in a closed shadow root", async () => {
    const { pw } = await open(
      `<button id="covered">Covered</button>
       <div style="position:fixed;top:0;left:0;width:400px;height:200px"></div>
       <button id="off" disabled style="position:absolute;top:300px">Off</button>
       <button id="moving" style="position:absolute;top:400px;animation:slide 10s linear infinite">Moving</button>
       <style>@keyframes slide { from { left: 0 } to { left: 300px } }</style>
       <div id="host" style="position:absolute;top:500px"></div>`,
    );
    await pw.evaluate(() => {
      const root = document.getElementById("host")!.attachShadow({ mode: "closed" });
      root.innerHTML = "<button>Closed</button>";
      (window as unknown as { closedButton: Element }).closedButton = root.firstElementChild!;
    });
    expect(await direct(pw, "#covered")).toBe(false);
    expect(await direct(pw, "#off")).toBe(false);
    expect(await direct(pw, "#moving")).toBe(false);
    const closed = (
      await pw.evaluateHandle(() => (window as unknown as { closedButton: Element }).closedButton)
    ).asElement()!;
    expect(
      await withTimeout("test", 5_000, "closed", (d) =>
        clickDirectly(pw, pw.mainFrame(), closed, {}, d),
      ),
    ).toBe(false);
    expect(await clicks(pw)).toEqual({});
  });

  it("stops a click an overlay that appears as the pointer arrives would take: the page sees none of it", async () => {
    const { pw } = await open(
      `<button id="b" style="position:absolute;left:20px;top:20px" onpointerenter="if (!window.shown) { window.shown = 1; document.body.insertAdjacentHTML('beforeend', '${OVERLAY.replaceAll('"', "&quot;")}') }">Under</button>`,
    );
    await pw.evaluate(() => {
      (window as unknown as { downs: number }).downs = 0;
      addEventListener("mousedown", () => (window as unknown as { downs: number }).downs++);
    });
    expect(await direct(pw, "#b")).toBe(false);
    expect(await clicks(pw)).toEqual({});
    expect(await pw.evaluate(() => (window as unknown as { downs: number }).downs)).toBe(0);
  });
});

describe("a guarded click (the action cache's check of the element)", () => {
  /** A guard that notes how it was asked: on the handle, or on the identity read in the page. */
  function noting(refuse = false) {
    const asked: string[] = [];
    const identity = async (seen: ElementIdentity) => {
      asked.push(`identity ${seen.role} "${seen.name}"`);
      if (refuse) throw new Error("not the element recorded");
    };
    const guard = Object.assign(
      async (element: ElementHandle) => {
        asked.push("handle");
        await identity(await identityOfElement(element));
      },
      { identity },
    );
    return { asked, guard };
  }

  it("on an outline XPath: checks the identity read in the page, with no handle, then clicks", async () => {
    const { page, pw } = await open(
      `<button id="top">Top</button><div style="height:3000px"></div><button id="low">Low</button>`,
    );
    const top = noting();
    await page.deepLocator("/html/body/button[1]", top.guard).click({ timeout: 5_000 });
    expect(top.asked).toEqual(['identity button "Top"']);
    const low = noting();
    await page.deepLocator("/html/body/button[2]", low.guard).click({ timeout: 5_000 });
    // Checked out of view, then scrolled to, read again and clicked.
    expect(low.asked).toEqual(['identity button "Low"']);
    expect(await clicks(pw)).toEqual({ top: 1, low: 1 });
  });

  it("on an outline XPath, refused: nothing clicked, nothing scrolled, no guard of ours left", async () => {
    const { page, pw } = await open(
      `<button id="top">Top</button> <button id="other">Other</button>
       <div style="height:3000px"></div><button id="low">Low</button>`,
    );
    for (const xpath of ["/html/body/button[3]", "/html/body/button[1]"]) {
      const refused = noting(true);
      const error = await failure(page.deepLocator(xpath, refused.guard).click({ timeout: 5_000 }));
      expect(error.message).toContain("not the element recorded");
      expect(refused.asked).toHaveLength(1);
    }
    expect(await clicks(pw)).toEqual({});
    expect(await pw.evaluate(() => scrollY)).toBe(0);
    const box = (await (await pw.$("#other"))!.boundingBox())!;
    await pw.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(await clicks(pw)).toEqual({ other: 1 });
  });

  it("refused by its guard: nothing clicked, nothing scrolled, no guard of ours left to judge a later click", async () => {
    const { page, pw } = await open(
      `<button id="top">Top</button> <button id="other">Other</button>
       <div style="height:3000px"></div><button id="low">Low</button>`,
    );
    const refuse = async () => {
      throw new Error("not the element recorded");
    };
    for (const selector of ["#low", "#top"]) {
      const error = await failure(page.deepLocator(selector, refuse).click({ timeout: 5_000 }));
      expect(error.message).toContain("not the element recorded");
    }
    expect(await clicks(pw)).toEqual({});
    expect(await pw.evaluate(() => scrollY)).toBe(0);
    const box = (await (await pw.$("#other"))!.boundingBox())!;
    await pw.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    expect(await clicks(pw)).toEqual({ other: 1 });
  });

  it("agreed by its guard: an element below the fold is scrolled to and clicked once", async () => {
    const { page, pw } = await open(
      `<div style="height:3000px"></div><button id="low">Low</button>`,
    );
    const seen: string[] = [];
    const agree = async (element: ElementHandle) => {
      seen.push(await element.evaluate((e) => (e as Element).id));
    };
    await page.deepLocator("#low", agree).click({ timeout: 5_000 });
    expect(seen).toEqual(["low"]);
    expect(await clicks(pw)).toEqual({ low: 1 });
  });
});

for (const [form, go] of [
  ["CSS", "#go"],
  ["XPath", "/html/body/form/button"],
] as const) {
  describe(`a click that asks for a navigation (${form})`, () => {
    it("returns once the new document has committed: the page's URL is the new one", async () => {
      const { page } = await open(
        `<form action="/__slow"><input type="hidden" name="ms" value="300"><button id="go">Go</button></form>`,
      );
      await page.click(go, { timeout: 10_000 });
      expect(page.url()).toBe(server.url("__slow?ms=300"));
    });

    it("does not fail a click whose navigation never commits", async () => {
      const { page } = await open(`<form action="/__hang"><button id="go">Go</button></form>`);
      // Playwright holds page calls while the navigation is pending: the URL is all to read.
      await expect(page.click(go, { timeout: 3_000 })).resolves.toBeUndefined();
      expect(page.url()).toBe(server.url("basic.html"));
    });

    it("returns at once when the click asks for none", async () => {
      const { page, pw } = await open(
        `<form action="/__slow" onsubmit="event.preventDefault()"><button id="go">Stay</button></form>`,
      );
      // A click that believed a navigation pending would wait for it half the time it has (10 s).
      const started = Date.now();
      await page.click(go, { timeout: 20_000 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(page.url()).toBe(server.url("basic.html"));
      expect(await clicks(pw)).toEqual({ go: 1 });
    });
  });
}

// By CSS the element is resolved to a handle first; by the outline's XPath form, found and aimed
// at in one call with no handle. Either way what must wait goes to Playwright's waits.
for (const [form, b] of [
  ["CSS", "#b"],
  ["XPath", "/html/body/button[@id='b']"],
] as const) {
  describe(`a click that must wait goes through Playwright's waits (${form})`, () => {
    it("clicks a covered button once the overlay goes; the overlay takes no click", async () => {
      const { page, pw } = await open(`<button id="b">Under</button>${OVERLAY}`);
      await pw.evaluate(() => setTimeout(() => document.getElementById("overlay")!.remove(), 400));
      await page.click(b, { timeout: 10_000 });
      expect(await clicks(pw)).toEqual({ b: 1 });
    });

    it("times out as before when the overlay stays, nothing clicked", async () => {
      const { page, pw } = await open(`<button id="b">Under</button>${OVERLAY}`);
      const error = await failure(page.click(b, { timeout: 1_500 }));
      expect(error).toBeInstanceOf(ServiceTimeoutError);
      expect(await clicks(pw)).toEqual({});
    });

    it("clicks a button where it jumped to as the pointer arrived, never what took its place", async () => {
      const { page, pw } = await open(
        `<button id="decoy" style="position:absolute;left:20px;top:20px;width:100px;height:40px">Decoy</button>
       <button id="b" style="position:absolute;left:20px;top:20px;width:100px;height:40px;z-index:1">Target</button>`,
      );
      await pw.evaluate(() => {
        const b = document.getElementById("b")!;
        b.addEventListener(
          "pointerenter",
          () => {
            b.style.top = "200px";
          },
          { once: true },
        );
      });
      await page.click(b, { timeout: 10_000 });
      expect(await clicks(pw)).toEqual({ b: 1 });
    });

    it("clicks a button re-rendered as the pointer arrived: the new one, once", async () => {
      const { page, pw } = await open(`<button id="b">Old</button>`);
      await pw.evaluate(() => {
        const old = document.getElementById("b")!;
        old.addEventListener("pointerenter", () => {
          const fresh = old.cloneNode(true) as HTMLElement;
          fresh.textContent = "New";
          old.replaceWith(fresh);
        });
      });
      await page.click(b, { timeout: 10_000 });
      expect(await clicks(pw)).toEqual({ b: 1 });
      expect(await pw.evaluate(() => document.getElementById("b")!.textContent)).toBe("New");
    });

    it("clicks an animated button once it stops", async () => {
      const { page, pw } = await open(
        `<style>@keyframes slide { from { left: 0 } to { left: 200px } }</style>
       <button id="b" style="position:absolute;top:40px;animation:slide .4s linear 1 forwards">Sliding</button>`,
      );
      await page.click(b, { timeout: 10_000 });
      expect(await clicks(pw)).toEqual({ b: 1 });
      expect(
        await pw.evaluate(() => document.getElementById("b")!.getBoundingClientRect().left),
      ).toBe(200);
    });

    it("clicks a disabled button once it is enabled", async () => {
      const { page, pw } = await open(`<button id="b" disabled>Later</button>`);
      await pw.evaluate(() =>
        setTimeout(() => document.getElementById("b")!.removeAttribute("disabled"), 400),
      );
      await page.click(b, { timeout: 10_000 });
      expect(await clicks(pw)).toEqual({ b: 1 });
    });
  });
}
