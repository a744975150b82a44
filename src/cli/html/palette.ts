import { compareText } from "../text-order.js";

// Colours of task prefixes, stable across reports: a prefix's colour comes from a hash of its
// name, not from its rank in one run, so two reports (of different sizes, seeds or versions of a
// workload) show `shuffle-split` in the same colour and can be compared side by side.
//
// The palette is 12 hues 30° apart at two lightness levels in OKLCH (L 0.53 and 0.65, chroma up to
// 0.16 within sRGB; the light level is offset by 15° of hue), so every colour keeps at least 3:1
// contrast against the white page (WCAG's minimum for graphical objects) and the two levels differ
// in lightness as well as hue. Changing this list or the hash changes every report's colours:
// test/cli/html-palette.test.ts pins both.
export const PREFIX_PALETTE = [
  "#b63b39", "#a35303", "#886602", "#6a7300", "#118226", "#007e68",
  "#037a84", "#0275a3", "#3d64c7", "#7553bd", "#98449e", "#ae3a70",
  "#de673b", "#c47d04", "#a39005", "#6ea124", "#06a96f", "#02a49e",
  "#029fc1", "#3093ec", "#7e80ee", "#ad70d7", "#cd63ad", "#de5f79",
] as const;

/**
 * Colours closer than this (Euclidean distance in OKLab) look alike side by side: neighbouring
 * hues of one lightness level are about 0.08 apart, neighbours across levels about 0.12.
 */
export const MIN_COLOUR_DISTANCE = 0.1;
/** Probing steps through the palette by this stride (coprime with its length, so it visits every colour). */
const PROBE_STRIDE = 7;

/** FNV-1a (32 bit) of the name's UTF-8 bytes: the same slot in any language that hashes the bytes. */
export function prefixHash(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The colour a prefix gets when no other prefix of the report claims a look-alike. */
export function hashedColour(name: string): string {
  return PREFIX_PALETTE[prefixHash(name) % PREFIX_PALETTE.length]!;
}

/**
 * Colours for the prefixes of one report. Each prefix takes its hashed colour; when that colour
 * is within MIN_COLOUR_DISTANCE of one already taken, the prefix probes on through the palette
 * (stride 7) to the first colour far enough from all taken ones, or, when none is, the one
 * farthest from them. Prefixes are placed in code-point order of their names, so the outcome
 * depends only on the set of names: the same prefixes always get the same colours, and a prefix
 * keeps its hashed colour unless a name sorting before it took a look-alike.
 * Returns the map in the order of `prefixes` as given.
 */
export function prefixColours(prefixes: Iterable<string>): Map<string, string> {
  const given = [...new Set(prefixes)];
  const taken: Array<readonly [number, number, number]> = [];
  const assigned = new Map<string, string>();
  for (const name of [...given].sort(compareText)) {
    const start = prefixHash(name) % PREFIX_PALETTE.length;
    let best = start;
    let bestDistance = -1;
    for (let step = 0; step < PREFIX_PALETTE.length; step += 1) {
      const slot = (start + step * PROBE_STRIDE) % PREFIX_PALETTE.length;
      const distance = taken.reduce((min, lab) => Math.min(min, labDistance(lab, PALETTE_LAB[slot]!)), Infinity);
      if (distance >= MIN_COLOUR_DISTANCE) {
        best = slot;
        break;
      }
      if (distance > bestDistance) {
        best = slot;
        bestDistance = distance;
      }
    }
    taken.push(PALETTE_LAB[best]!);
    assigned.set(name, PREFIX_PALETTE[best]!);
  }
  return new Map(given.map((name) => [name, assigned.get(name)!]));
}

/** OKLab coordinates of a `#rrggbb` colour (Björn Ottosson's matrices). */
export function oklab(hex: string): readonly [number, number, number] {
  const channel = (offset: number): number => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = [channel(1), channel(3), channel(5)];
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

export function labDistance(a: readonly [number, number, number], b: readonly [number, number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

const PALETTE_LAB = PREFIX_PALETTE.map(oklab);
