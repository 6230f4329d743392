import { describe, expect, it } from "vitest";
import { fillVariables, hideVariables } from "../../lib/variables.js";

describe("variables in text", () => {
  const variables = { email: "ada@example.com", q: "green tea&co", pin: { value: 4321 } };

  it("hides each value as its token, also as a URL writes it", () => {
    const text =
      "typed ada@example.com; url ?e=ada%40example.com&q=green+tea%26co or green%20tea%26co; pin 4321";
    expect(hideVariables(text, variables)).toBe(
      "typed %email%; url ?e=%email%&q=%q% or %q%; pin %pin%",
    );
  });

  it("hides the forms a browser's form submission writes, in either hex case", () => {
    const vars = { pw: "hunter2!x (a)~'" };
    const submitted = new URLSearchParams({ q: vars.pw }).toString();
    expect(hideVariables(`?${submitted}`, vars)).toBe("?q=%pw%");
    expect(hideVariables("?q=hunter2%21x%20%28a%29%7e%27", vars)).toBe("?q=%pw%");
  });

  it("hides a value as the outline's quoting and HTML escape it", () => {
    const vars = { pw: `Tr0ub"4dor\\3 <&'>` };
    const quoted = JSON.stringify(vars.pw);
    expect(hideVariables(`value=${quoted}`, vars)).toBe('value="%pw%"');
    expect(hideVariables("Tr0ub&quot;4dor\\3 &lt;&amp;&#39;&gt;", vars)).toBe("%pw%");
    expect(hideVariables("Tr0ub&quot;4dor\\3 &lt;&amp;&#x27;&gt;", vars)).toBe("%pw%");
  });

  it("leaves one-character values alone, and text without values as it is", () => {
    expect(hideVariables("a b c", { x: "b" })).toBe("a b c");
    expect(hideVariables("nothing here", variables)).toBe("nothing here");
  });

  it("fills tokens from the variables and refuses an unknown one, naming it", () => {
    expect(fillVariables("%email% / %pin%", variables)).toBe("ada@example.com / 4321");
    expect(() => fillVariables("%nope%", variables)).toThrow(/no variable "nope"/);
  });
});
