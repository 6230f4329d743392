/**
 * What a screenshot-driven model sees, and how its coordinates map back. The viewport is
 * captured at most SCREEN_BOX large (never enlarged), the same aspect, whatever the device
 * scale factor: a model is shown the image it expects, and a point it names in that image is
 * a CSS pixel of the page by the exact ratio of the two sizes.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import { ownSession } from "../browser/frameSessions.js";

/** The largest screenshot a model is shown; larger viewports are scaled down to fit. */
const SCREEN_BOX = { width: 1280, height: 800 };

export interface Screen {
  /** The image's size, in its pixels: the space the model's coordinates are in. */
  width: number;
  height: number;
  /** The viewport's size in CSS pixels. */
  cssWidth: number;
  cssHeight: number;
}

interface Viewport {
  width: number;
  height: number;
  scrollX: number;
  scrollY: number;
  dpr: number;
}

async function viewportOf(page: PlaywrightPage): Promise<Viewport> {
  return page.evaluate(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
    scrollX: window.scrollX,
    scrollY: window.scrollY,
    dpr: window.devicePixelRatio,
  }));
}

function screenOf(view: Viewport, box = SCREEN_BOX): Screen {
  const scale = Math.min(1, box.width / view.width, box.height / view.height);
  return {
    width: Math.max(1, Math.round(view.width * scale)),
    height: Math.max(1, Math.round(view.height * scale)),
    cssWidth: view.width,
    cssHeight: view.height,
  };
}

/** The screen a model sees for this page now (no capture). */
export async function screenFor(page: PlaywrightPage): Promise<Screen> {
  return screenOf(await viewportOf(page));
}

/** The viewport as a PNG of the screen's size. */
export async function captureScreen(
  page: PlaywrightPage,
): Promise<{ image: Buffer; screen: Screen }> {
  const view = await viewportOf(page);
  const screen = screenOf(view);
  const own = await ownSession(page, page.mainFrame());
  if (!own) throw new Error("the page has no session to capture it through");
  // The clip is in document coordinates (hence the scroll offsets); the output is clip size ×
  // scale × the device scale factor the renderer uses, so dividing by it gives the screen's
  // size. A renderer whose factor differs from the page's (an emulation set by another
  // session) shows in the image's size: captured again at the corrected scale.
  const capture = async (scale: number) => {
    const { data } = await own.session.send("Page.captureScreenshot", {
      format: "png",
      clip: { x: view.scrollX, y: view.scrollY, width: view.width, height: view.height, scale },
    });
    return Buffer.from(data, "base64");
  };
  const scale = screen.width / view.width / view.dpr;
  let image = await capture(scale);
  const width = image.readUInt32BE(16);
  if (width !== screen.width) image = await capture((scale * screen.width) / width);
  // The image's own size is the space the model names points in: a pixel of rounding the
  // renderer adds is mapped back too, not assumed away.
  return {
    image,
    screen: { ...screen, width: image.readUInt32BE(16), height: image.readUInt32BE(20) },
  };
}

/** A point of the screenshot as a CSS pixel of the viewport. */
export function toViewport(screen: Screen, x: number, y: number): { x: number; y: number } {
  return {
    x: (x * screen.cssWidth) / screen.width,
    y: (y * screen.cssHeight) / screen.height,
  };
}
