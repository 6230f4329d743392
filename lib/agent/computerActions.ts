/**
 * Performs a computer-use action (computerCalls.ts reads them) on the page; points are in the
 * pixels of the screen they were named in.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import { type Deadline, sleep } from "../timeout.js";
import type { ComputerAction } from "./computerCalls.js";
import { withReserve } from "./openUrl.js";
import { clickAt, dragAlong, moveTo, type Point, scrollAt } from "./pointer.js";
import type { Screen } from "./screen.js";
import { toViewport } from "./screen.js";

/** Where the mouse is, in screenshot pixels: kept across the calls of one run. */
export interface Pointer {
  at: Point;
}

export interface Typing {
  /** Called where the keys are about to go: may refuse by throwing. */
  check: () => Promise<void>;
  /** Puts the text into the focused element (replacing what it holds when `clear`). */
  put?: (text: string, clear: boolean) => Promise<void>;
}

/** Keys, as a person types them; `clear` selects what the field holds and deletes it first. */
export async function typeKeys(page: PlaywrightPage, text: string, clear: boolean): Promise<void> {
  if (clear) {
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
  }
  await page.keyboard.type(text);
}

/** Performs the action; text to type has had its %name% tokens filled by the caller. */
export async function performComputerAction(
  page: PlaywrightPage,
  screen: Screen,
  action: ComputerAction,
  pointer: Pointer,
  signal: AbortSignal,
  deadline: Deadline,
  /**
   * Text carrying a variable's value: checked where it is about to go (after typeAt's click),
   * and put into the focused element itself rather than typed as keys (guardedInput.ts).
   */
  typing: Typing = { check: async () => {} },
): Promise<string> {
  const { check: beforeTyping } = typing;
  const type = (text: string, clear: boolean) =>
    typing.put ? typing.put(text, clear) : typeKeys(page, text, clear);
  switch (action.kind) {
    case "click": {
      const at = action.at ?? pointer.at;
      // A chord ("Control+Shift") is held key by key.
      const held = action.modifier ? action.modifier.split("+") : [];
      for (const key of held) await page.keyboard.down(key);
      try {
        await clickAt(page, screen, at, { button: action.button, clickCount: action.count });
      } finally {
        for (const key of held.reverse()) await page.keyboard.up(key);
      }
      pointer.at = at;
      return `${action.count > 1 ? `${action.count}× ` : ""}${action.button} click at (${at.x}, ${at.y})`;
    }
    case "move":
      await moveTo(page, screen, action.at);
      pointer.at = action.at;
      return `mouse at (${action.at.x}, ${action.at.y})`;
    case "down":
      await page.mouse.down();
      return "mouse button down";
    case "up":
      await page.mouse.up();
      return "mouse button up";
    case "drag":
      await dragAlong(page, screen, action.path);
      pointer.at = action.path[action.path.length - 1] ?? pointer.at;
      return `dragged along ${action.path.length} points`;
    case "scroll": {
      const at = action.at ?? pointer.at;
      const f = screen.cssWidth / screen.width;
      await scrollAt(page, screen, at, { dx: action.dx * f, dy: action.dy * f });
      // Wheel scrolling is applied asynchronously by the compositor.
      await sleep(100, signal);
      return `scrolled (${action.dx}, ${action.dy}) at (${at.x}, ${at.y})`;
    }
    case "type":
      await beforeTyping();
      await type(action.text, false);
      return "typed";
    case "keys":
      for (const k of action.keys) await page.keyboard.press(k);
      return `pressed ${action.keys.join(" ")}`;
    case "holdKey": {
      const keys = action.key.split("+");
      for (const key of keys) await page.keyboard.down(key);
      // Let go in any case, also when the tool's time runs out: a key left down reaches every
      // later action.
      try {
        await sleep(Math.min(action.ms, 10_000, withReserve(deadline)), signal);
      } finally {
        for (const key of keys.reverse()) await page.keyboard.up(key);
      }
      return `held ${action.key}`;
    }
    case "wait":
      await sleep(Math.min(action.ms, 30_000), signal);
      return "waited";
    case "screenshot":
      return "screenshot";
    case "typeAt": {
      await clickAt(page, screen, action.at);
      pointer.at = action.at;
      await beforeTyping();
      await type(action.text, action.clear === true);
      if (action.enter) await page.keyboard.press("Enter");
      return `typed at (${Math.round(action.at.x)}, ${Math.round(action.at.y)})`;
    }
    case "back":
    case "forward": {
      const before = page.url();
      const options = { waitUntil: "domcontentloaded" as const, timeout: withReserve(deadline) };
      await (action.kind === "back" ? page.goBack(options) : page.goForward(options));
      return page.url() === before
        ? `nothing to go ${action.kind} to`
        : `went ${action.kind} to ${page.url()}`;
    }
    case "navigate":
      // Opened by the computer tool, which applies the navigation-safety rule first.
      throw new Error("navigate is opened by the computer tool");
    case "cursor": {
      const p = toViewport(screen, pointer.at.x, pointer.at.y);
      return `the mouse is at (${pointer.at.x}, ${pointer.at.y}) (viewport ${Math.round(p.x)}, ${Math.round(p.y)})`;
    }
  }
}
