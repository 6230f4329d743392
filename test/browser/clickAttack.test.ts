/**
 * A page that fights the click: it may lie to the aim, swap the target, cover it. The click
 * lands on the element named, or fails; never on something else.
 */
import type { ElementHandle, Page as PlaywrightPage } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ElementIdentity } from "../../lib/api/operations.js";
import { identityOfElement } from "../../lib/browser/elementIdentity.js";
import { ServiceTimeoutError } from "../../lib/index.js";
import { clickPages } from "../support/clickPage.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";
import { useStaticServer } from "../support/staticServer.js";

const server = useStaticServer();
const clients = useClients();
const { open, clicks } = clickPages(server, clients);

/** As the pointer arrives, the page swaps the button for a "Delete all" in its place. */
const swapOnPointerMove = (pw: PlaywrightPage) =>
  pw.evaluate(() => {
    const old = document.getElementById("b")!;
    old.addEventListener("pointermove", () => {
      const swapped = old.cloneNode(true) as HTMLElement;
      swapped.id = "deleteAll";
      swapped.textContent = "Delete all";
      old.replaceWith(swapped);
    });
  });

const LIAR = `<script>
  const real = Document.prototype.elementFromPoint;
  Document.prototype.elementFromPoint = function () { return document.getElementById("b"); };
</script>`;

/** A frame laid over the target, invisible, whose button counts its clicks. */
const frameOver = (src: string) =>
  `<iframe style="position:absolute;left:0;top:0;width:300px;height:200px;opacity:0;border:0" src="${src}"></iframe>`;

const BUTTON = `<button id="b" style="position:absolute;left:20px;top:20px;width:100px;height:40px">Cancel</button>`;

async function frameClicks(pw: PlaywrightPage): Promise<() => Promise<number>> {
  const inner = pw.frames().find((f) => f !== pw.mainFrame())!;
  await inner.waitForFunction(() => "clicks" in window);
  return () => inner.evaluate(() => (window as unknown as { clicks: number }).clicks);
}

// The handle's aim runs in the page's main world: a page that patches elementFromPoint there
// names the target while a transparent frame (same site or another) takes the mouse.
describe("a page that lies to the aim about what is on top", () => {
  for (const [form, b] of [
    ["CSS", "#b"],
    ["XPath", "/html/body/button[@id='b']"],
  ] as const) {
    for (const site of ["same site", "another site"] as const) {
      it(`clicks nothing in a transparent frame over the target (${form}, ${site})`, async () => {
        const src = server.url("attack/deleteAll.html");
        const { page, pw } = await open(
          `${BUTTON}${frameOver(site === "same site" ? src : src.replace("127.0.0.1", "localhost"))}${LIAR}`,
        );
        const inFrame = await frameClicks(pw);
        const error = await failure(page.click(b, { timeout: 1_500 }));
        expect(error).toBeInstanceOf(ServiceTimeoutError);
        expect(await inFrame()).toBe(0);
        expect(await clicks(pw)).toEqual({});
      });
    }
  }
});

describe("a page that changes what is under the pointer as it arrives", () => {
  for (const [form, b] of [
    ["CSS", "#b"],
    ["XPath", "/html/body/button[@id='b']"],
  ] as const) {
    it(`never clicks a "Delete all" swapped in at the target's place (${form})`, async () => {
      const { page, pw } = await open(BUTTON);
      await swapOnPointerMove(pw);
      await failure(page.click(b, { timeout: 1_500 }));
      expect(await clicks(pw)).toEqual({});
    });

    for (const site of ["same site", "another site"] as const) {
      it(`clicks nothing in a transparent frame laid over the target as the pointer moves (${form}, ${site})`, async () => {
        const { page, pw } = await open(BUTTON);
        const src = server.url("attack/deleteAll.html");
        await pw.evaluate(
          (src) => {
            const frame = document.createElement("iframe");
            frame.src = src;
            frame.style.cssText =
              "position:absolute;left:0;top:0;width:300px;height:200px;opacity:0;border:0;display:none";
            document.body.append(frame);
            document.getElementById("b")!.addEventListener("pointermove", () => {
              frame.style.display = "block";
            });
          },
          site === "same site" ? src : src.replace("127.0.0.1", "localhost"),
        );
        const inFrame = await frameClicks(pw);
        const outcome = await page.click(b, { timeout: 1_500 }).then(
          () => "clicked",
          (error: Error) => error.constructor.name,
        );
        expect({ outcome, inFrame: await inFrame(), clicks: await clicks(pw) }).toEqual({
          outcome: "ServiceTimeoutError",
          inFrame: 0,
          clicks: {},
        });
      });
    }
  }
});

describe("a guarded click on a target the page re-renders as the pointer arrives", () => {
  /** The action cache's guard: only the button named "Cancel" is the element recorded. */
  const onlyCancel = Object.assign(
    async (element: ElementHandle) => onlyCancel.identity(await identityOfElement(element)),
    {
      identity: async (seen: ElementIdentity) => {
        if (seen.name !== "Cancel") throw new Error(`not the element recorded: ${seen.name}`);
      },
    },
  );

  for (const [form, b] of [
    ["CSS", "button"],
    ["XPath", "/html/body/button[1]"],
  ] as const) {
    it(`refuses a "Delete all" swapped in at the same place and path as stale, clicking nothing (${form})`, async () => {
      const { page, pw } = await open(BUTTON);
      await swapOnPointerMove(pw);
      const error = await failure(page.deepLocator(b, onlyCancel).click({ timeout: 3_000 }));
      expect(error.message).toMatch(/not the element recorded: Delete all/);
      expect(await clicks(pw)).toEqual({});
    });
  }
});
