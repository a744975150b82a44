// Interned name paths. Every exported series is named by a path of segments plus a unit,
// and the same few paths recur for every task (["execute", "inc", "thread-cpu"], …). A trie
// of frozen paths lets flattening find a path with one Map lookup per segment and hand out
// the same frozen DigestMetric name array each time, instead of building, comparing and
// freezing arrays per task. The trie is bounded; past the bound, paths are made fresh
// (correct, just not shared).
import { SERIES_SEPARATOR } from "./keys.js";
import { appendSegment } from "./segments.js";

const MAX_INTERNED_PATHS = 20_000;
let internedPaths = 0;

export class PathNode {
  readonly #children = new Map<string, PathNode>();
  readonly #names = new Map<string, readonly string[]>();
  #key: string | undefined = undefined;

  constructor(
    /** Frozen segments from the root. */
    readonly path: readonly string[],
    /** False for a node made past the bound: equal paths may then be distinct nodes. */
    readonly interned: boolean,
  ) {}

  /** The node of this path followed by `segment`. */
  child(segment: string): PathNode {
    const known = this.#children.get(segment);
    if (known !== undefined) return known;
    const path = Object.freeze(appendSegment(this.path, segment));
    if (!this.interned || internedPaths >= MAX_INTERNED_PATHS) return new PathNode(path, false);
    internedPaths += 1;
    const node = new PathNode(path, true);
    this.#children.set(segment, node);
    return node;
  }

  /** The node of this path followed by every segment of `segments`. */
  descend(segments: readonly string[]): PathNode {
    let node: PathNode = this;
    for (let i = 0; i < segments.length; i += 1) node = node.child(segments[i]!);
    return node;
  }

  /** Frozen `[...path, unit]`: the name of a DigestMetric. */
  nameWith(unit: string): readonly string[] {
    let name = this.#names.get(unit);
    if (name === undefined) {
      name = Object.freeze(appendSegment(this.path, unit));
      if (this.interned) this.#names.set(unit, name);
    }
    return name;
  }

  /** Key of this path's series of `unit` (segments and unit joined by U+001F). */
  keyWith(unit: string): string {
    if (this.path.length === 0) return unit;
    this.#key ??= this.path.join(SERIES_SEPARATOR);
    return this.#key + SERIES_SEPARATOR + unit;
  }
}

/** The empty path: where every tree's paths start. */
export const ROOT_PATH = new PathNode(Object.freeze([]), true);
