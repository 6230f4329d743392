import { describe, expect, it } from "vitest";
import { chord, keyName } from "../../lib/agent/pointer.js";
import { agentModesOf } from "../../lib/model/capabilities.js";

describe("key names as models write them", () => {
  it("become Playwright's", () => {
    expect(chord("ctrl+a")).toBe("Control+a");
    expect(chord(["CTRL", "SHIFT", "T"])).toBe("Control+Shift+t");
    expect(keyName("Return")).toBe("Enter");
    expect(keyName("INSERT")).toBe("Insert");
    expect(keyName("CAPSLOCK")).toBe("CapsLock");
    expect(keyName("f5")).toBe("F5");
    expect(keyName("PageDown")).toBe("PageDown");
  });
});

describe("which agent modes a model can run", () => {
  it("reads them from the model's name", () => {
    expect(agentModesOf("openai/gpt-4.1")).toEqual(["dom", "hybrid"]);
    expect(agentModesOf("openai/o3-mini")).toEqual(["dom"]);
    expect(agentModesOf("openai/o4-mini")).toEqual(["dom", "hybrid"]);
    expect(agentModesOf("anthropic/claude-sonnet-4-5")).toEqual(["dom", "hybrid", "cua"]);
    expect(agentModesOf("openai/computer-use-preview")).toEqual(["cua"]);
    expect(agentModesOf("google/gemini-2.5-computer-use-preview-10-2025")).toEqual([
      "dom",
      "hybrid",
      "cua",
    ]);
    expect(
      agentModesOf({ modelName: "computer-use-preview", baseURL: "http://127.0.0.1:9/v1" }),
    ).toEqual(["cua"]);
    expect(agentModesOf({ modelName: "qwen2.5-vl", baseURL: "http://127.0.0.1:9/v1" })).toEqual([
      "dom",
      "hybrid",
    ]);
  });
});
