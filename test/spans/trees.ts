// Random sequential span trees for property tests.
import fc from "fast-check";
import { Span, type CpuClock, type SpanOptions } from "../../src/spans/index.js";
import { FakeClock } from "./fake-clock.js";

export interface Shape {
  gapBefore: number;
  own: number;
  bytes: number;
  children: Shape[];
}

const duration = fc.double({ min: 0, max: 3, noNaN: true });

export function shapeArbitrary(depth = 3): fc.Arbitrary<Shape> {
  return fc.record({
    gapBefore: duration,
    own: duration,
    bytes: fc.nat({ max: 1 << 20 }),
    children: depth === 0 ? fc.constant([]) : fc.array(shapeArbitrary(depth - 1), { maxLength: 3 }),
  });
}

export interface BuildHooks {
  /** Called before the clock moves from `from` to `to` (e.g. to scrape in between). */
  beforeAdvance?(from: number, to: number): void;
  rootOptions?: SpanOptions;
  cpu?: CpuClock;
}

/**
 * Builds a tree: each node waits `gapBefore` inside its parent, runs its children one after
 * another, then spends `own` before ending; bytes are added just before it ends.
 */
export function buildTree(shape: Shape, origin: number, hooks: BuildHooks = {}): Span {
  const clock = new FakeClock(origin);
  const advance = (seconds: number): void => {
    const to = clock.time + seconds;
    hooks.beforeAdvance?.(clock.time, to);
    clock.set(to);
  };
  const root = new Span("root", { clock, ...hooks.rootOptions }).start();
  const grow = (parent: Span, node: Shape, index: number): void => {
    advance(node.gapBefore);
    const span = parent.child(`n${index}`);
    node.children.forEach((child, i) => grow(span, child, i));
    advance(node.own);
    if (node.bytes > 0) span.addMetric("bytes", node.bytes);
    span.end();
  };
  shape.children.forEach((child, i) => grow(root, child, i));
  advance(shape.own);
  root.end();
  return root;
}
