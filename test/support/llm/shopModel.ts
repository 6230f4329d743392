/**
 * A scripted model for the tea shop pages (test/fixtures/outline/shop.html and the demo's
 * page), answering from what the request carries, as a real model would: act and observe → the
 * "Add to cart" button after the product the instruction names; extract → the "Cart:" line
 * (or, when the output schema asks for `item`, the product in it).
 *
 * It reads two request formats: ours (an outline of `[12] button "Add to cart"` lines, the
 * instruction under `Instruction:`) and the reference v1 server's, which the issue 34 benches
 * send it too (an accessibility tree of `[0-12] button: Add to cart` lines, the instruction
 * under `instruction:` or `Instruction:`, act answered as one element with `twoStep`, and
 * extract followed by a second call asking whether the extraction is complete).
 */
import type { RequestHandler } from "msw";
import { instructionOf, type ModelRequest, promptOf } from "./modelServer.js";
import { openaiResponses } from "./openai.js";

const PRODUCTS = ["Green tea", "Black tea", "White tea", "Oolong"];

/** Where the page ends the instruction: our outline, or the reference's tree and DOM. */
const PAGE_HEADINGS = ["Page outline", "Accessibility Tree:", "DOM:", "Extracted content:"];

export function shopModel(baseURL?: string): RequestHandler {
  return openaiResponses((request) => {
    const prompt = promptOf(request);
    const instruction = instructionIn(request).toLowerCase();
    const asked = schemaProperties(request);
    // The reference's second extract call: is what was extracted enough? It always is here.
    if (asked.includes("completed") && asked.includes("progress")) {
      return { progress: "the cart line", completed: true };
    }
    // act, and observe (whose answer has elements too): the button after the named product.
    const elements = JSON.stringify(request.body.text ?? request.body).includes('"elements"');
    const oneElement = asked.includes("elementId");
    if (prompt.includes("The one element to act on") || elements || oneElement) {
      const product = PRODUCTS.find((p) => instruction.includes(p.toLowerCase()));
      const id = product ? buttonAfter(prompt, product) : undefined;
      const choice = id && {
        elementId: id,
        description: `Add to cart, ${product}`,
        method: "click",
        arguments: [],
      };
      // The reference's act asks for one element (and whether it takes two steps), and for
      // nothing found its prompt says: an empty object.
      if (oneElement) return choice ? { ...choice, twoStep: false } : {};
      return { elements: choice ? [choice] : [] };
    }
    const cart =
      prompt
        .split("\n")
        .map((l) => /^\s*(?:\[[\d-]+\] StaticText: )?(Cart: .*)$/.exec(l)?.[1])
        .find(Boolean)
        ?.trim() ?? "";
    if (instruction.includes("title")) return { extraction: "Tea shop" };
    // The answer's shape follows the output schema the request asks for.
    return asked.includes("item") || JSON.stringify(request.body).includes('"item"')
      ? { item: cart.replace(/^Cart: /, "") }
      : { extraction: cart };
  }, baseURL);
}

/** What the caller asked for, without the page after it, in either format. */
function instructionIn(request: ModelRequest): string {
  const ours = instructionOf(request);
  const prompt = promptOf(request);
  const at = ours ? -1 : prompt.toLowerCase().lastIndexOf("instruction:");
  const text = ours || (at === -1 ? "" : prompt.slice(at));
  const ends = PAGE_HEADINGS.map((h) => text.indexOf(h)).filter((i) => i > 0);
  return ends.length ? text.slice(0, Math.min(...ends)) : text;
}

/** The top-level property names of the JSON schema the answer must follow (Responses API). */
function schemaProperties(request: ModelRequest): string[] {
  const format = (request.body.text as { format?: { schema?: { properties?: object } } })?.format;
  return Object.keys(format?.schema?.properties ?? {});
}

/**
 * The id of the first "Add to cart" button after the product's link: `[12] button "Add to
 * cart"` in our outline, `[0-12] button: Add to cart` in the reference's tree.
 */
function buttonAfter(prompt: string, product: string): string | undefined {
  const lines = prompt.split("\n");
  const link = lines.findIndex(
    (l) => l.includes(`link "${product}"`) || l.includes(`link: ${product}`),
  );
  for (const line of lines.slice(Math.max(0, link))) {
    const id = /^\s*\[(\d+(?:-\d+)?)\] /.exec(line)?.[1];
    if (id && (line.includes('button "Add to cart"') || line.includes("button: Add to cart"))) {
      return id;
    }
  }
  return undefined;
}
