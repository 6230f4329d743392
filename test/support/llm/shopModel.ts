/**
 * A scripted model for the tea shop pages (test/fixtures/outline/shop.html and the demo's
 * page), answering from what the request carries, as a real model would: act and observe → the
 * "Add to cart" button after the product the instruction names; extract → the "Cart:" line
 * (or, when the output schema asks for `item`, the product in it).
 */
import type { RequestHandler } from "msw";
import { idOfLine, instructionOf, promptOf } from "./modelServer.js";
import { openaiResponses } from "./openai.js";

const PRODUCTS = ["Green tea", "Black tea", "White tea", "Oolong"];

export function shopModel(baseURL?: string): RequestHandler {
  return openaiResponses((request) => {
    const prompt = promptOf(request);
    const instruction = instructionOf(request).toLowerCase();
    // act, and observe (whose answer has elements too): the button after the named product.
    const elements = JSON.stringify(request.body.text ?? request.body).includes('"elements"');
    if (prompt.includes("The one element to act on") || elements) {
      const product = PRODUCTS.find((p) => instruction.includes(p.toLowerCase()));
      const lines = prompt.split("\n");
      const after = lines.slice(
        Math.max(
          0,
          lines.findIndex((l) => l.includes(`link "${product}"`)),
        ),
      );
      const id = product ? idOfLine(after.join("\n"), 'button "Add to cart"') : undefined;
      return {
        elements: id
          ? [
              {
                elementId: id,
                description: `Add to cart, ${product}`,
                method: "click",
                arguments: [],
              },
            ]
          : [],
      };
    }
    const cart =
      prompt
        .split("\n")
        .find((l) => l.trim().startsWith("Cart:"))
        ?.trim() ?? "";
    if (instruction.includes("title")) return { extraction: "Tea shop" };
    // The answer's shape follows the output schema the request asks for.
    return JSON.stringify(request.body).includes('"item"')
      ? { item: cart.replace(/^Cart: /, "") }
      : { extraction: cart };
  }, baseURL);
}
