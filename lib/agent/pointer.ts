/**
 * Input at a point of the screenshot, for the coordinate tools and the computer-use modes:
 * every point is mapped back to the viewport by the screen it was named in.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import { sleep } from "../timeout.js";
import { type Screen, toViewport } from "./screen.js";

export type MouseButton = "left" | "right" | "middle";

export interface Point {
  x: number;
  y: number;
}

export async function clickAt(
  page: PlaywrightPage,
  screen: Screen,
  at: Point,
  options: { button?: MouseButton; clickCount?: number } = {},
): Promise<void> {
  const p = toViewport(screen, at.x, at.y);
  await page.mouse.click(p.x, p.y, {
    button: options.button ?? "left",
    clickCount: options.clickCount ?? 1,
  });
}

export async function moveTo(page: PlaywrightPage, screen: Screen, at: Point): Promise<void> {
  const p = toViewport(screen, at.x, at.y);
  await page.mouse.move(p.x, p.y);
}

/** Presses at the first point, moves through the others, releases at the last. */
export async function dragAlong(
  page: PlaywrightPage,
  screen: Screen,
  path: Point[],
): Promise<void> {
  const [start, ...rest] = path;
  if (!start || !rest.length) throw new Error("a drag needs a start and an end point");
  await moveTo(page, screen, start);
  await page.mouse.down();
  for (const point of rest) {
    const p = toViewport(screen, point.x, point.y);
    await page.mouse.move(p.x, p.y, { steps: 5 });
  }
  await page.mouse.up();
}

/** Presses at a point and holds for `ms` (a long press), or until `signal`. */
export async function holdAt(
  page: PlaywrightPage,
  screen: Screen,
  at: Point,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  await moveTo(page, screen, at);
  await page.mouse.down();
  // Let go in any case: a button left down would reach every later action.
  try {
    await sleep(ms, signal);
  } finally {
    await page.mouse.up();
  }
}

/** Scrolls what is under a point by (dx, dy) CSS pixels. */
export async function scrollAt(
  page: PlaywrightPage,
  screen: Screen,
  at: Point,
  delta: { dx: number; dy: number },
): Promise<void> {
  await moveTo(page, screen, at);
  await page.mouse.wheel(delta.dx, delta.dy);
}

/** Key names as models write them ("ctrl", "Return", "PageDown") → Playwright's. */
export function keyName(key: string): string {
  const k = key.trim();
  const map: Record<string, string> = {
    ctrl: "Control",
    control: "Control",
    cmd: "Meta",
    command: "Meta",
    super: "Meta",
    meta: "Meta",
    win: "Meta",
    alt: "Alt",
    option: "Alt",
    shift: "Shift",
    return: "Enter",
    enter: "Enter",
    esc: "Escape",
    escape: "Escape",
    space: "Space",
    tab: "Tab",
    backspace: "Backspace",
    delete: "Delete",
    del: "Delete",
    up: "ArrowUp",
    down: "ArrowDown",
    left: "ArrowLeft",
    right: "ArrowRight",
    arrowup: "ArrowUp",
    arrowdown: "ArrowDown",
    arrowleft: "ArrowLeft",
    arrowright: "ArrowRight",
    pageup: "PageUp",
    page_up: "PageUp",
    pagedown: "PageDown",
    page_down: "PageDown",
    home: "Home",
    end: "End",
    insert: "Insert",
    ins: "Insert",
    capslock: "CapsLock",
    numlock: "NumLock",
    scrolllock: "ScrollLock",
    printscreen: "PrintScreen",
    contextmenu: "ContextMenu",
    menu: "ContextMenu",
  };
  const known = map[k.toLowerCase()];
  if (known) return known;
  // Function keys and names in capitals ("F5", "INSERT") in the form Playwright knows.
  if (/^f\d{1,2}$/i.test(k)) return k.toUpperCase();
  return k.length > 1 && k === k.toUpperCase() ? k[0] + k.slice(1).toLowerCase() : k;
}

/** A chord written "ctrl+a" or ["CTRL", "A"] as Playwright's "Control+a". */
export function chord(keys: string | string[]): string {
  const parts = Array.isArray(keys) ? keys : keys.split("+");
  return parts
    .map((k) => keyName(k))
    .map((k) => (k.length === 1 ? k.toLowerCase() : k))
    .join("+");
}

/** A scroll of `amount` in a direction, as (dx, dy). */
export function scrollDelta(direction: unknown, amount: number): { dx: number; dy: number } {
  return {
    dx: direction === "left" ? -amount : direction === "right" ? amount : 0,
    dy: direction === "up" ? -amount : direction === "down" ? amount : 0,
  };
}
