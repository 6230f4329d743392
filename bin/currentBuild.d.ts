/** Types of currentBuild.js (plain JavaScript, for the executable entry). */
export declare const STAMP_VERSION: number;
export declare const STAMP: string;
export declare const BUILT_ENTRY: string;
export declare const SOURCE_ENTRY: string;
export declare const BUILT_MCP_ENTRY: string;
export declare const MCP_SOURCE_ENTRY: string;

/** What the build read, per file relative to the checkout's root. */
export interface BuildInput {
  size: number;
  mtimeMs: number;
  sha256: string;
}

export interface BuildStamp {
  version: number;
  inputs: Record<string, BuildInput>;
}

export declare function sha256(bytes: string | Uint8Array): string;
export declare function buildState(
  root: string,
): { current: true } | { current: false; why: string };
