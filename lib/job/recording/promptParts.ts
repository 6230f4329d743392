/**
 * A structured call's prompt in its two parts: the instruction (with the variables it names)
 * and the page outline. act, observe and extract all write `Instruction: …` first and the
 * outline after a `Page outline…:` line (lib/handlers/observe.ts, extract.ts).
 */
export interface PromptParts {
  instruction: string;
  outline: string;
}

const OUTLINE_HEAD = /\nPage outline[^\n]*:\n/;

export function promptParts(prompt: string): PromptParts {
  const head = OUTLINE_HEAD.exec(prompt);
  if (!head) return { instruction: prompt.replace(/^Instruction: /, "").trim(), outline: "" };
  return {
    instruction: prompt
      .slice(0, head.index)
      .replace(/^Instruction: /, "")
      .trim(),
    outline: prompt.slice(head.index + head[0].length),
  };
}

/** Where two outlines first differ, in a sentence: the line number and both lines. */
export function firstDifference(recorded: string, now: string): string {
  const a = recorded.split("\n");
  const b = now.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const shown = (line: string | undefined) =>
      line === undefined ? "(nothing)" : JSON.stringify(clip(line.trim()));
    return `line ${i + 1} was ${shown(a[i])}, is now ${shown(b[i])}`;
  }
  return "they differ only in their ends of lines";
}

function clip(line: string): string {
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
