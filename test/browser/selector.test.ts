import { describe, expect, it } from "vitest";
import {
  firstStepOf,
  parseSelector,
  shadowPieces,
  xpathSteps,
} from "../../lib/browser/selector.js";

describe("selector parsing", () => {
  it("splits an XPath at iframe steps into frame hops", () => {
    expect(parseSelector("xpath=/html/body/div/iframe[2]/html/body/button")).toMatchObject({
      frames: [{ kind: "xpath", xpath: "/html/body/div/iframe[2]" }],
      target: { kind: "xpath", xpath: "/html/body/button" },
    });
    const nested = parseSelector("/html/body/iframe/html/body/frame[1]/html[1]/body/p");
    expect(nested.frames.map((f) => (f.kind === "xpath" ? f.xpath : ""))).toEqual([
      "/html/body/iframe",
      "/html/body/frame[1]",
    ]);
    expect(nested.target).toEqual({ kind: "xpath", xpath: "/html[1]/body/p" });
  });

  it("reads bare XPaths starting with / or (, and CSS with >> hops", () => {
    expect(parseSelector("(//button)[2]").target).toEqual({
      kind: "xpath",
      xpath: "(//button)[2]",
    });
    expect(parseSelector("iframe#a >> iframe.b >> button")).toMatchObject({
      frames: [{ css: "iframe#a" }, { css: "iframe.b" }],
      target: { kind: "css", css: "button" },
    });
  });

  it("refuses empty selectors and empty hops", () => {
    expect(() => parseSelector("  ")).toThrow(/empty/);
    expect(() => parseSelector("xpath=")).toThrow(/no XPath/);
    expect(() => parseSelector("iframe >> ")).toThrow(/empty part/);
  });

  it("ignores slashes inside predicates and strings", () => {
    expect(xpathSteps("/html/body/a[@href='/x/y']/span")).toEqual([
      "",
      "html",
      "body",
      "a[@href='/x/y']",
      "span",
    ]);
  });

  it("reads inner // as shadow boundaries, but not a leading //", () => {
    expect(shadowPieces("/html/body/my-el//div/span")).toEqual(["/html/body/my-el", "div/span"]);
    expect(shadowPieces("//my-el//div")).toEqual(["//my-el", "div"]);
    expect(shadowPieces("/a//b//c")).toEqual(["/a", "b", "c"]);
    expect(shadowPieces("/html/body/div")).toBeUndefined();
    expect(shadowPieces("//div")).toBeUndefined();
  });

  it("splits the first step inside a shadow root into name and predicates", () => {
    expect(firstStepOf("div[@class='a[1]'][2]/span")).toEqual({
      first: { name: "div", predicates: ["@class='a[1]'", "2"] },
      rest: "span",
    });
    expect(firstStepOf("*[last()]")).toEqual({
      first: { name: "*", predicates: ["last()"] },
      rest: "",
    });
    expect(() => firstStepOf("div]x")).toThrow(/cannot start inside a shadow root/);
  });
});
