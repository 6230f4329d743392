/**
 * The providers' computer-use calls, read into one vocabulary (ComputerAction): OpenAI sends
 * `{ action: { type: "click", x, y, button } }`, Anthropic `{ action: "left_click",
 * coordinate: [x, y] }`, Gemini `{ name: "click_at", args: { x, y } }` on a 0–999 grid. Points
 * come out in the screenshot's pixels.
 */
import { z } from "zod";
import { type SafetyCheck, SafetyCheckSchema } from "../options.js";
import { chord, type MouseButton, type Point, scrollDelta } from "./pointer.js";
import type { Screen } from "./screen.js";

export type { SafetyCheck };

export type ComputerAction =
  | { kind: "click"; at: Point | undefined; button: MouseButton; count: number; modifier?: string }
  | { kind: "move"; at: Point }
  | { kind: "down" }
  | { kind: "up" }
  | { kind: "drag"; path: Point[] }
  | { kind: "scroll"; at: Point | undefined; dx: number; dy: number }
  | { kind: "type"; text: string }
  | { kind: "keys"; keys: string[] }
  | { kind: "holdKey"; key: string; ms: number }
  | { kind: "wait"; ms: number }
  | { kind: "screenshot" }
  | { kind: "cursor" }
  | { kind: "typeAt"; at: Point; text: string; clear: boolean; enter: boolean }
  | { kind: "navigate"; url: string }
  | { kind: "back" }
  | { kind: "forward" };

/** How far a "click" of Anthropic's scroll wheel moves, in screenshot pixels. */
const SCROLL_CLICK_PX = 100;

const OpenAIAction = z.looseObject({ type: z.string() });
const OpenAIInput = z.looseObject({
  action: OpenAIAction,
  safety_checks: z.array(SafetyCheckSchema).default([]),
});
const Pair = z.tuple([z.number(), z.number()]);
const AnthropicInput = z.looseObject({
  action: z.string(),
  coordinate: Pair.optional(),
  start_coordinate: Pair.optional(),
  text: z.string().optional(),
  duration: z.number().optional(),
  scroll_direction: z.enum(["up", "down", "left", "right"]).optional(),
  scroll_amount: z.number().optional(),
});

const GoogleInput = z.object({
  google: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
});

/**
 * The action a computer-use call asks for, and the safety checks that came with it. `screen`
 * turns Gemini's 0–999 grid into screenshot pixels.
 */
export function readComputerCall(
  input: unknown,
  screen: Screen,
): { action: ComputerAction; checks: SafetyCheck[] } {
  const google = GoogleInput.safeParse(input);
  if (google.success) return fromGoogle(google.data.google.name, google.data.google.args, screen);
  const openai = OpenAIInput.safeParse(input);
  if (openai.success)
    return { action: fromOpenAI(openai.data.action), checks: openai.data.safety_checks };
  const anthropic = AnthropicInput.safeParse(input);
  if (anthropic.success) return { action: fromAnthropic(anthropic.data), checks: [] };
  throw new Error(`not a computer action: ${JSON.stringify(input).slice(0, 200)}`);
}

function toNumber(v: unknown): number {
  return typeof v === "number" ? v : Number(v ?? 0);
}

function fromOpenAI(a: z.infer<typeof OpenAIAction>): ComputerAction {
  const at = { x: toNumber(a.x), y: toNumber(a.y) };
  switch (a.type) {
    case "click": {
      const b = String(a.button ?? "left");
      // The mouse's back and forward buttons move through the tab's history.
      if (b === "back") return { kind: "back" };
      if (b === "forward") return { kind: "forward" };
      const button: MouseButton = b === "right" ? "right" : b === "wheel" ? "middle" : "left";
      return { kind: "click", at, button, count: 1 };
    }
    case "double_click":
      return { kind: "click", at, button: "left", count: 2 };
    case "move":
      return { kind: "move", at };
    case "drag":
      return {
        kind: "drag",
        path: ((a.path ?? []) as { x: number; y: number }[]).map((p) => ({
          x: toNumber(p.x),
          y: toNumber(p.y),
        })),
      };
    case "scroll":
      return { kind: "scroll", at, dx: toNumber(a.scroll_x), dy: toNumber(a.scroll_y) };
    case "type":
      return { kind: "type", text: String(a.text ?? "") };
    case "keypress":
      return { kind: "keys", keys: [chord((a.keys ?? []) as string[])] };
    case "wait":
      return { kind: "wait", ms: 1_000 };
    case "screenshot":
      return { kind: "screenshot" };
    default:
      throw new Error(`unknown computer action "${a.type}"`);
  }
}

/** Gemini's points are on a 0–999 grid over the screenshot. */
const GRID = 1000;

function fromGoogle(
  name: string,
  args: Record<string, unknown>,
  screen: Screen,
): { action: ComputerAction; checks: SafetyCheck[] } {
  const at = (x: unknown, y: unknown) => ({
    x: (toNumber(x) / GRID) * screen.width,
    y: (toNumber(y) / GRID) * screen.height,
  });
  const decision = args.safety_decision as { decision?: string; explanation?: string } | undefined;
  const checks: SafetyCheck[] =
    decision?.decision && decision.decision !== "regular" && decision.decision !== "allowed"
      ? [{ id: "safety_decision", code: decision.decision, message: decision.explanation }]
      : [];
  const action = ((): ComputerAction => {
    switch (name) {
      case "click_at":
        return { kind: "click", at: at(args.x, args.y), button: "left", count: 1 };
      case "hover_at":
        return { kind: "move", at: at(args.x, args.y) };
      case "type_text_at":
        return {
          kind: "typeAt",
          at: at(args.x, args.y),
          text: String(args.text ?? ""),
          clear: args.clear_before_typing !== false,
          enter: args.press_enter !== false,
        };
      case "key_combination":
        return { kind: "keys", keys: [chord(String(args.keys ?? ""))] };
      case "scroll_document": {
        const middle = { x: screen.width / 2, y: screen.height / 2 };
        const across = args.direction === "left" || args.direction === "right";
        const px = (across ? screen.width : screen.height) * 0.8;
        return { kind: "scroll", at: middle, ...scrollDelta(args.direction, px) };
      }
      case "scroll_at": {
        const magnitude = args.magnitude === undefined ? 800 : toNumber(args.magnitude);
        // On the grid's own axis: left/right by the width, up/down by the height.
        const across = args.direction === "left" || args.direction === "right";
        const px = (magnitude / GRID) * (across ? screen.width : screen.height);
        return { kind: "scroll", at: at(args.x, args.y), ...scrollDelta(args.direction, px) };
      }
      case "drag_and_drop":
        return {
          kind: "drag",
          path: [at(args.x, args.y), at(args.destination_x, args.destination_y)],
        };
      case "navigate":
        return { kind: "navigate", url: String(args.url ?? "") };
      case "search":
        return { kind: "navigate", url: "https://www.google.com/" };
      case "go_back":
        return { kind: "back" };
      case "go_forward":
        return { kind: "forward" };
      case "wait_5_seconds":
        return { kind: "wait", ms: 5_000 };
      case "open_web_browser":
        return { kind: "screenshot" };
      default:
        throw new Error(`unknown computer action "${name}"`);
    }
  })();
  return { action, checks };
}

function fromAnthropic(a: z.infer<typeof AnthropicInput>): ComputerAction {
  const at = a.coordinate ? { x: a.coordinate[0], y: a.coordinate[1] } : undefined;
  const click = (button: MouseButton, count: number): ComputerAction => ({
    kind: "click",
    at,
    button,
    count,
    modifier: a.text ? chord(a.text) : undefined,
  });
  switch (a.action) {
    case "left_click":
      return click("left", 1);
    case "right_click":
      return click("right", 1);
    case "middle_click":
      return click("middle", 1);
    case "double_click":
      return click("left", 2);
    case "triple_click":
      return click("left", 3);
    case "mouse_move":
      if (!at) throw new Error("mouse_move needs a coordinate");
      return { kind: "move", at };
    case "left_mouse_down":
      return { kind: "down" };
    case "left_mouse_up":
      return { kind: "up" };
    case "left_click_drag": {
      if (!a.start_coordinate || !at)
        throw new Error("left_click_drag needs start_coordinate and coordinate");
      return { kind: "drag", path: [{ x: a.start_coordinate[0], y: a.start_coordinate[1] }, at] };
    }
    case "scroll": {
      const px = (a.scroll_amount ?? 3) * SCROLL_CLICK_PX;
      return { kind: "scroll", at, ...scrollDelta(a.scroll_direction ?? "down", px) };
    }
    case "type":
      return { kind: "type", text: a.text ?? "" };
    case "key":
      return {
        kind: "keys",
        keys: (a.text ?? "")
          .split(" ")
          .filter(Boolean)
          .map((k) => chord(k)),
      };
    case "hold_key":
      return { kind: "holdKey", key: chord(a.text ?? ""), ms: (a.duration ?? 1) * 1000 };
    case "wait":
      return { kind: "wait", ms: (a.duration ?? 1) * 1000 };
    case "screenshot":
      return { kind: "screenshot" };
    case "cursor_position":
      return { kind: "cursor" };
    default:
      throw new Error(`unknown computer action "${a.action}"`);
  }
}
