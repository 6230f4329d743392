/**
 * A variable's value put into one element, never sent as keys. Keys go wherever the focus is
 * when they arrive, and a page can move the focus between any two of them (a frame of another
 * site that takes it back on blur receives the rest); a check of the element before typing
 * cannot see that. So the value is inserted by the element's own document, in one task that
 * first checks the element holds the focus there (a shadow root's too) and that its document
 * has the page's focus: no script of another document runs between that check and the
 * insertion. Typed character by character, each character is such a task; when the focus has
 * moved before the next one, typing stops there and says so.
 *
 * The insertion is the editing command a paste or an IME uses (`insertText`): the page sees
 * `beforeinput` and `input` events as for typing, not `keydown`/`keyup`. Text with no variable
 * in it is typed with real keys as before (lib/browser/deepLocator.ts).
 */
import type { ElementHandle } from "playwright-core";
import { VariableOriginRefused } from "../variables.js";
import { inPage } from "./inPage.js";

export interface PutOptions {
  /** Replace what the element holds (fill), rather than add after it (type). */
  replace: boolean;
  /** One character at a time (type), each its own checked insertion. */
  perCharacter: boolean;
  signal?: AbortSignal;
  /** How the refusal names what was typed: `%PASSWORD%`, never the value. */
  shownAs: string;
}

type Outcome = "ok" | "moved" | "detached" | "not-editable";

/** Inserts `text` into `element`; throws VariableOriginRefused when the focus moved. */
export async function putValue(
  element: ElementHandle,
  text: string,
  options: PutOptions,
  /** Characters already put in by an earlier attempt on an element since replaced. */
  from = 0,
): Promise<number> {
  const parts = options.perCharacter ? [...text] : [text];
  const start = options.perCharacter ? from : 0;
  let done = start;
  for (let i = start; i < parts.length || (i === 0 && parts.length === 0); i++) {
    if (options.signal?.aborted) throw options.signal.reason;
    const outcome = (await element.evaluate(PUT, {
      text: parts[i] ?? "",
      replace: options.replace && i === 0,
      first: i === start,
    })) as Outcome;
    if (outcome === "detached") throw new DetachedWhileTyping(done);
    if (outcome === "not-editable") {
      throw new VariableOriginRefused(
        `${options.shownAs} is put only into a text field or an editable element, and this one is neither. Nothing was typed.`,
      );
    }
    if (outcome === "moved") {
      const where = options.perCharacter ? `after ${done} of ${parts.length} characters` : "";
      throw new VariableOriginRefused(
        `The focus left the field ${where ? `${where} ` : ""}while ${options.shownAs} was typed (the page moved it): stopped, and nothing more was typed.`,
      );
    }
    done = i + 1;
    if (parts.length === 0) break;
  }
  return done;
}

/** The element was removed or replaced mid-way: `typed` characters went in before. */
export class DetachedWhileTyping extends Error {
  constructor(readonly typed: number) {
    // Playwright's wording, which the locator's retry recognises.
    super("Element is not attached to the DOM");
  }
}

/** Runs in the element's own document: check the focus, then insert, in one task. */
const PUT = inPage(
  (
    element: Element,
    { text, replace, first }: { text: string; replace: boolean; first: boolean },
  ): Outcome => {
    if (!element.isConnected) return "detached";
    const deepFocus = () => {
      let focused = document.activeElement;
      while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
      return focused;
    };
    const field =
      element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
        ? element
        : undefined;
    if (!field && !(element instanceof HTMLElement && element.isContentEditable)) {
      return "not-editable";
    }
    // Only the first insertion may take the focus; after it, a focus elsewhere is the page's doing.
    if (first && deepFocus() !== element) (element as HTMLElement).focus();
    if (deepFocus() !== element || !document.hasFocus()) return "moved";
    if (!replace && field) {
      // After what it holds, wherever the page left the caret (a re-rendered field's is at 0).
      try {
        field.setSelectionRange(field.value.length, field.value.length);
      } catch {
        // Fields without a caret (type=email, number) add at the end anyway.
      }
    }
    if (replace) {
      if (field) field.select();
      else {
        const range = document.createRange();
        range.selectNodeContents(element);
        const selection = getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
      }
    }
    const before = field?.value;
    const inserted =
      text === ""
        ? replace
          ? document.execCommand("delete")
          : true
        : document.execCommand("insertText", false, text);
    if (inserted && (!field || field.value !== before || text === "")) return "ok";
    if (!field) return "not-editable";
    // A field the editing command does not edit (type=number, email, date…): its value is set
    // by the element's own setter and announced as typing would be.
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), "value")?.set;
    setter?.call(field, replace ? text : field.value + text);
    field.dispatchEvent(
      new InputEvent("input", {
        bubbles: true,
        composed: true,
        inputType: "insertText",
        data: text,
      }),
    );
    field.dispatchEvent(new Event("change", { bubbles: true }));
    return "ok";
  },
);
