import pino from "pino";
import { z } from "zod";
import { looksLikeSecretName } from "./secrets.js";

/** 0 = error, 1 = info, 2 = debug; a line is emitted when its level ≤ the client's `verbose`. */
export const LogLevelSchema = z.union([z.literal(0), z.literal(1), z.literal(2)]);
export type LogLevel = z.infer<typeof LogLevelSchema>;

export interface LogLine {
  category: string;
  message: string;
  level: LogLevel;
  auxiliary?: Record<string, unknown>;
  timestamp: string;
}

export type LogReceiver = (line: LogLine) => void;

export interface LoggerOptions {
  verbose: LogLevel;
  disablePino: boolean;
  logger?: LogReceiver | undefined;
  /** Values that must never appear in a log line (API keys, passwords, tokens). */
  secrets?: Iterable<string | undefined>;
}

const REDACTED = "[REDACTED]";
/** Shorter values are too likely to be ordinary words to scrub from every line. */
const MIN_SECRET_LENGTH = 4;
/** `scheme://user:password@host` or `scheme://token@host`: any URL's userinfo, known or not. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/**
 * Replaces known secret values, and the values of secret-looking keys, wherever they occur.
 * One instance per client; the logger, history and error paths all go through it.
 */
export class Redactor {
  /** Longest first, so that a secret inside another never leaves the rest of the longer one. */
  private secrets: string[] = [];

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.includes(secret)) return;
    this.secrets = [...this.secrets, secret].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  /** Scrubs an error's message and stack in place, and those of its causes. */
  error<E>(error: E, depth = 0): E {
    if (error instanceof Error && depth < 5) {
      error.message = this.text(error.message);
      if (error.stack) error.stack = this.text(error.stack);
      this.error(error.cause, depth + 1);
    }
    return error;
  }

  value(value: unknown, depth = 0): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object" || depth > 8) return value;
    if (Array.isArray(value)) return value.map((v) => this.value(v, depth + 1));
    if (value instanceof Error) return this.text(value.message);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        looksLikeSecretName(k) && v !== undefined && v !== null
          ? REDACTED
          : this.value(v, depth + 1);
    }
    return out;
  }
}

const PINO_METHOD = { 0: "error", 1: "info", 2: "debug" } as const;

export class Logger {
  readonly redactor: Redactor;
  private readonly verbose: LogLevel;
  private readonly receiver: LogReceiver | undefined;
  private readonly pino: pino.Logger | undefined;

  constructor(options: LoggerOptions) {
    this.verbose = options.verbose;
    this.receiver = options.logger;
    this.redactor = new Redactor(options.secrets);
    // No transports: worker-thread transports break serverless bundlers.
    this.pino = options.disablePino
      ? undefined
      : pino({ level: "debug", base: null, timestamp: pino.stdTimeFunctions.isoTime });
  }

  error(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.emit(0, category, message, auxiliary);
  }

  info(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.emit(1, category, message, auxiliary);
  }

  /** An info-level line that pino records as a warning. */
  warn(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.emit(1, category, message, auxiliary, "warn");
  }

  debug(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.emit(2, category, message, auxiliary);
  }

  /** A line written elsewhere (the service, for a remote call): emitted here as this logger's own. */
  relay(line: Omit<LogLine, "timestamp">): void {
    this.emit(line.level, line.category, line.message, line.auxiliary);
  }

  private emit(
    level: LogLevel,
    category: string,
    message: string,
    auxiliary: Record<string, unknown> | undefined,
    pinoMethod: "error" | "warn" | "info" | "debug" = PINO_METHOD[level],
  ): void {
    if (level > this.verbose) return;
    const line: LogLine = {
      category,
      message: this.redactor.text(message),
      level,
      timestamp: new Date().toISOString(),
    };
    if (auxiliary) line.auxiliary = this.redactor.value(auxiliary) as Record<string, unknown>;
    this.pino?.[pinoMethod]({ category, auxiliary: line.auxiliary }, line.message);
    if (this.receiver) {
      try {
        this.receiver(line);
      } catch {
        // A broken log receiver must not break the browser session it is watching.
      }
    }
  }
}
