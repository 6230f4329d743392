import type { ElementIdentity } from "../api/operations.js";

/**
 * What the walk of one frame (serializeFrame.ts, run in the page) keeps there and sends back.
 */

/** Kept in the isolated world for the life of the document: what CDP told us once. */
export interface WorldStore {
  /** Host → its closed shadow root. */
  roots: WeakMap<Element, ShadowRoot>;
  /** Host CDP has looked at → its size then; asked again only once that changes. */
  checked: WeakMap<Element, string>;
}

/** What a capture asks of one frame's walk (sent to the page as plain data). */
export interface WalkRequest {
  /** Names the capture's stash in the frame's isolated world. */
  key: string;
  /** The walk must find a scope marked in its stash (the capture starts in this frame). */
  expectScope: boolean;
  /** Milliseconds since the last action, on our clock. */
  actionAge: number;
  /** Record what each element with an id is. */
  identities: boolean;
  /** Mark the document read at the walk's end (outlineMarks.ts). */
  stamp: boolean;
}

/** One capture's state in a frame's isolated world, under the capture's key. */
export interface FrameStash {
  /** Hosts that may carry a closed shadow root (filled by the walk). */
  candidates: Element[];
  /** Each candidate's size when the walk saw it (`WxH`): asked again once that changes. */
  sizes: string[];
  /** The iframe elements of the frame's lines, in line order (filled by the walk). */
  frames: Element[];
  /** Only this element's subtree is outlined. */
  scope?: Element;
  /** These elements and their subtrees are left out. */
  ignore?: Set<Element>;
}

export interface FrameLines {
  /** Line text without indentation or id, e.g. `link "Home"`. */
  text: string[];
  depth: number[];
  /** 1 for an element that gets an id. */
  interactive: number[];
  /** Selector of the element within this frame (XPath, `//` at shadow boundaries); "" if none. */
  path: string[];
  /** Absolute URL of a link; "" if none. */
  url: string[];
  /** Asked for (`identities`): what each element with an id is (elementIdentity.ts); else null. */
  identity: (ElementIdentity | null)[];
  /** Distance from the top of the document, CSS px, for viewport ordering. */
  top: number[];
  /** Index into `stash.frames` for an iframe line; -1 otherwise. */
  frame: number[];
  /** How many hosts the walk saw worth asking CDP about (closed shadow roots). */
  candidates: number;
  /** Elements in the document, when there are candidates (0 otherwise). */
  elements: number;
  /** Milliseconds since the document's elements last changed (or since its load). */
  quietFor: number;
  /** The document's title, white space collapsed ("" if none). */
  title: string;
  /** A scope was expected and is gone (its document was replaced). */
  scopeLost: boolean;
  /** The capture's stash is still in the frame's world (later steps read it): clean it up. */
  kept: boolean;
  viewportHeight: number;
  scrollY: number;
  /** The document's change mark as the walk ended (DomWatcher.stamp), when asked for; else 0. */
  stamp: number;
}
