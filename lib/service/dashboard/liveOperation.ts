/**
 * The operation under way on a session, as its viewers and its stream see it: what it was
 * asked, whether the model is being asked now (and which), an agent's steps so far (tool, the
 * model's reasoning, outcome), and once it ends, the record the dashboard keeps. While it runs
 * it tells a stream, every few seconds, that it is still at work, so that no proxy drops a
 * stream that has had nothing else to say (a long model call at verbose 0).
 */
import type { AgentEvent } from "../../api/operations.js";
import type { AgentControl, Operations } from "../../engine/engine.js";
import type { LogLevel, LogLine } from "../../log.js";
import type { SpendGuard } from "../../model/modelClient.js";
import { answerText, askedText, errorText } from "./operationText.js";
import type { ShownText } from "./shownText.js";

/** One step of an agent run: a tool it called, or an answer in words. */
export interface StepView {
  step: number;
  tool: string;
  /** The tool's input, as the loop shows it (its own short form). */
  input?: string;
  /** What the model said before its call. */
  reasoning?: string;
  /** What the tool told the model back, or why it failed. */
  outcome?: string;
  failed?: boolean;
}

/** What the dashboard keeps of an operation beside its timings. */
export interface OperationDetail {
  asked?: string;
  answer?: string;
  error?: string;
  cache?: "HIT" | "MISS";
  steps?: StepView[];
}

/** Where a running operation says it is still at work: a stream (answers.ts writes both). */
export interface StillWorking {
  /** An SSE comment: read by no client, kept by every proxy as traffic. */
  keepAlive?(note: string): void;
  line(line: LogLine): void;
}

const STEPS_KEPT = 200;
const STEP_TEXT_CHARS = 1_000;
const INPUT_CHARS = 300;

export class LiveOperation {
  readonly since = Date.now();
  readonly asked: string | undefined;
  /** The model call in flight: which model, since when. */
  private inFlight: { model: string; since: number } | undefined;
  private readonly steps: StepView[] = [];
  private readonly byCall = new Map<string, StepView>();
  /** What the model said in a step, until its first tool call takes it. */
  private readonly said = new Map<number, string>();

  constructor(
    readonly method: string,
    request: unknown,
    private readonly shown: ShownText,
  ) {
    this.asked = askedText(method, request, shown);
  }

  /** The model call in flight, if any. */
  get asking(): { model: string; since: number } | undefined {
    return this.inFlight;
  }

  /** A model call starts (the session's spend guard is asked first): `model` as named. */
  modelAsked(model: string): void {
    this.inFlight = { model: this.shown.text(model), since: Date.now() };
  }

  /** The model answered (or its call ended some other way). */
  modelAnswered(): void {
    this.inFlight = undefined;
  }

  /** The steps so far. */
  get stepsSoFar(): StepView[] {
    return this.steps;
  }

  /** An agent run's event, turned into its steps. */
  event(event: AgentEvent): void {
    switch (event.type) {
      case "text":
        this.said.set(event.step, event.text);
        break;
      case "tool-call": {
        const reasoning = this.said.get(event.step);
        this.said.delete(event.step);
        const step: StepView = {
          step: event.step,
          tool: event.toolName,
          ...(event.input !== undefined ? { input: this.inputText(event.input) } : {}),
          ...(reasoning ? { reasoning: this.shown.bounded(reasoning, STEP_TEXT_CHARS) } : {}),
        };
        this.byCall.set(event.toolCallId, step);
        this.add(step);
        break;
      }
      case "tool-result": {
        const step = this.byCall.get(event.toolCallId);
        if (!step) break;
        step.outcome = this.shown.bounded(event.output, STEP_TEXT_CHARS);
        step.failed = event.error;
        this.byCall.delete(event.toolCallId);
        break;
      }
      case "step-finish": {
        // A step that called no tool answered in words: how the run ended.
        const reasoning = this.said.get(event.step);
        this.said.delete(event.step);
        if (reasoning) {
          this.add({
            step: event.step,
            tool: "answer",
            reasoning: this.shown.bounded(reasoning, STEP_TEXT_CHARS),
          });
        }
        break;
      }
    }
  }

  /** The engine's operations, an agent run's events also told to this operation. */
  watch(operations: Operations): Operations {
    const tee = (control: AgentControl): AgentControl => ({
      ...control,
      onEvent: (event) => {
        this.event(event);
        control.onEvent?.(event);
      },
    });
    return {
      act: (request, control) => operations.act(request, control),
      observe: (request, control) => operations.observe(request, control),
      extract: (request, control) => operations.extract(request, control),
      agentExecute: (request, control) => operations.agentExecute(request, tee(control)),
      identify: (request) => operations.identify(request),
      agentReplay: (request, signal) => operations.agentReplay(request, signal),
    };
  }

  /**
   * Every `everyMs` while it runs: a comment to the stream (the model being asked, when it is),
   * and at verbose 1 or more a log line when the model is being asked. Returns the stop.
   */
  beat(to: StillWorking, everyMs: number, verbose: LogLevel): () => void {
    const timer = setInterval(() => {
      const now = Date.now();
      const seconds = (since: number) => Math.round((now - since) / 1000);
      const model = this.inFlight;
      const note = model
        ? `${this.method}: waiting for ${model.model}, ${seconds(model.since)} s so far`
        : `${this.method} running, ${seconds(this.since)} s so far`;
      to.keepAlive?.(`keep-alive: ${note}`);
      if (model && verbose >= 1) {
        to.line({
          category: "model",
          message: `${this.method}: still waiting for ${model.model} (${seconds(model.since)} s)`,
          level: 1,
          timestamp: new Date(now).toISOString(),
        });
      }
    }, everyMs);
    return () => clearInterval(timer);
  }

  /** What the dashboard keeps once the operation ended with `result`, or failed with `error`. */
  finish(outcome: { result: unknown } | { error: unknown }): OperationDetail {
    this.inFlight = undefined;
    const asked = this.asked === undefined ? {} : { asked: this.asked };
    if ("error" in outcome) {
      return { ...asked, error: errorText(outcome.error, this.shown), ...this.stepsKept() };
    }
    const { actions, ...answer } = answerText(this.method, outcome.result, this.shown);
    // A run told no events (a cached run replayed): its steps from the actions it answers.
    if (!this.steps.length && actions) for (const a of actions) this.add(this.actionStep(a));
    return { ...asked, ...answer, ...this.stepsKept() };
  }

  private stepsKept(): { steps?: StepView[] } {
    return this.method === "agentExecute" || this.steps.length ? { steps: this.steps } : {};
  }

  private add(step: StepView): void {
    // A long run keeps its latest steps.
    if (this.steps.length >= STEPS_KEPT) this.steps.shift();
    this.steps.push(step);
  }

  private inputText(input: unknown): string {
    const text = typeof input === "string" ? input : (JSON.stringify(input) ?? "");
    return this.shown.bounded(text, INPUT_CHARS);
  }

  private actionStep(action: unknown): StepView {
    const a = (action ?? {}) as Record<string, unknown>;
    const text = (value: unknown) =>
      typeof value === "string" && value ? this.shown.bounded(value, STEP_TEXT_CHARS) : undefined;
    const reasoning = text(a.reasoning);
    const failed = text(a.error);
    const outcome = failed ?? text(a.action) ?? text(a.pageUrl);
    return {
      step: this.steps.length + 1,
      tool: typeof a.type === "string" ? a.type : "step",
      ...(reasoning ? { reasoning } : {}),
      ...(outcome ? { outcome } : {}),
      ...(failed ? { failed: true } : {}),
    };
  }
}

/**
 * The session's spend guard, also telling the operation under way when a model call starts (the
 * guard is asked first) and when one was paid for; `sessionModel` answers a call naming none.
 */
export function watchingModelCalls(
  guard: SpendGuard | undefined,
  current: () => LiveOperation | undefined,
  sessionModel: string | undefined,
): SpendGuard {
  return {
    before: async (config) => {
      await guard?.before(config);
      current()?.modelAsked(modelNameOf(config) ?? sessionModel ?? "the model");
    },
    spent: (config, usage) => {
      guard?.spent(config, usage);
      current()?.modelAnswered();
    },
  };
}

/** The model a call names (a "provider/model" string or a configuration's), never its key. */
function modelNameOf(config: unknown): string | undefined {
  if (typeof config === "string") return config;
  const name = (config as { modelName?: unknown } | undefined)?.modelName;
  return typeof name === "string" ? name : undefined;
}
