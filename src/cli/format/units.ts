// Human units for the summary and the HTML report. Locale-independent on purpose: the same
// report must print the same text on every machine (tests and diffs rely on it).

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;

/** `1536` → `1.5 KiB`; three significant digits above 1 KiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const sign = bytes < 0 ? "-" : "";
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${sign}${Math.round(value)} B`;
  return `${sign}${significant(value)} ${BYTE_UNITS[unit]}`;
}

/** Seconds with a unit that keeps three significant digits: `1.23 s`, `45.6 ms`, `789 µs`, `616 s`, `2 h 5 min`. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  const magnitude = Math.abs(seconds);
  if (magnitude === 0) return "0 s";
  if (magnitude < 1e-6) return `${significant(seconds * 1e9)} ns`;
  if (magnitude < 1e-3) return `${significant(seconds * 1e6)} µs`;
  if (magnitude < 1) return `${significant(seconds * 1e3)} ms`;
  // Seconds up to an hour, so that totals and their parts read in the same unit.
  if (magnitude < 3600) return magnitude >= 100 ? `${formatCount(seconds)} s` : `${significant(seconds)} s`;
  const minutes = Math.round(magnitude / 60);
  return `${seconds < 0 ? "-" : ""}${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `1234567` → `1,234,567`; fractions keep up to `digits` decimals. */
export function formatCount(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  const fixed = Math.abs(value).toFixed(digits);
  const [whole = "0", fraction] = fixed.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const sign = value < 0 && Number(fixed) !== 0 ? "-" : "";
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`;
}

/** A share 0..1 as a percentage: `0.4567` → `45.7%`; tiny non-zero shares show as `<0.1%`. */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return "–";
  if (share > 0 && share < 0.0005) return "<0.1%";
  return `${(share * 100).toFixed(1)}%`;
}

/** A rate with a sensible number of decimals: `81.0`, `1,234`, `0.123`. */
export function formatRate(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return formatCount(value, 0);
  return significant(value);
}

function significant(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}
