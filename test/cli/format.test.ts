import { describe, expect, it } from "vitest";
import { createStyle, shouldUseColor, stripAnsi, visibleWidth } from "../../src/cli/format/color.js";
import { bar, renderTable } from "../../src/cli/format/table.js";
import { formatBytes, formatCount, formatPercent, formatRate, formatSeconds } from "../../src/cli/format/units.js";

describe("units", () => {
  it("formats bytes in binary units with three significant digits", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1536)).toBe("1.50 KiB");
    expect(formatBytes(48 * 2 ** 20)).toBe("48.0 MiB");
    expect(formatBytes(250 * 2 ** 20)).toBe("250 MiB");
    expect(formatBytes(3 * 2 ** 40)).toBe("3.00 TiB");
  });
  it("formats seconds with a unit that fits", () => {
    expect(formatSeconds(0)).toBe("0 s");
    expect(formatSeconds(12.5)).toBe("12.5 s");
    expect(formatSeconds(0.8)).toBe("800 ms");
    expect(formatSeconds(0.000789)).toBe("789 µs");
    expect(formatSeconds(4)).toBe("4.00 s");
    expect(formatSeconds(723)).toBe("723 s");
    expect(formatSeconds(1234.4)).toBe("1,234 s");
    expect(formatSeconds(7500)).toBe("2 h 5 min");
  });
  it("groups thousands without depending on the locale", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(-1234.5, 1)).toBe("-1,234.5");
  });
  it("keeps the sign of negative values", () => {
    expect(formatSeconds(-0.0897)).toBe("-89.7 ms");
    expect(formatBytes(-1536)).toBe("-1.50 KiB");
  });
  it("formats shares and rates", () => {
    expect(formatPercent(0.4567)).toBe("45.7%");
    expect(formatPercent(0.0001)).toBe("<0.1%");
    expect(formatPercent(0)).toBe("0.0%");
    expect(formatRate(81)).toBe("81.0");
    expect(formatRate(1234.4)).toBe("1,234");
    expect(formatRate(0.1234)).toBe("0.123");
  });
});

describe("renderTable", () => {
  it("aligns columns left and right under a rule", () => {
    const lines = renderTable(
      [{ header: "name" }, { header: "seconds", align: "right" }],
      [
        ["inc", "12.5 s"],
        ["a-longer-prefix", "800 ms"],
      ],
      { indent: "  " },
    );
    expect(lines).toEqual([
      "  name             seconds",
      "  ───────────────  ───────",
      "  inc               12.5 s",
      "  a-longer-prefix   800 ms",
    ]);
  });
  it("measures styled cells by their visible text", () => {
    const style = createStyle(true);
    const lines = renderTable([{ header: "a" }, { header: "b", align: "right" }], [[style.red("xy"), "1"], ["z", style.bold("22")]]);
    expect(lines.map(stripAnsi)).toEqual(["a    b", "──  ──", "xy   1", "z   22"]);
  });
});

describe("bar", () => {
  it("fills eighths of a column", () => {
    expect(bar(1, 4)).toBe("████");
    expect(bar(0.5, 4)).toBe("██");
    expect(bar(0.5 + 1 / 32, 4)).toBe("██▏");
    expect(bar(0.5 + 1 / 16, 4)).toBe("██▎");
    expect(bar(0, 4)).toBe("");
  });
  it("keeps a sliver for tiny non-zero shares and clamps the rest", () => {
    expect(bar(0.0001, 10)).toBe("▏");
    expect(bar(2, 3)).toBe("███");
    expect(bar(Number.NaN, 3)).toBe("");
  });
});

describe("colour", () => {
  it("is on for terminals only, and off whenever NO_COLOR is set", () => {
    expect(shouldUseColor({ isTTY: true }, {})).toBe(true);
    expect(shouldUseColor({ isTTY: false }, {})).toBe(false);
    expect(shouldUseColor({}, {})).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(shouldUseColor({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(shouldUseColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });
  it("styles nothing when disabled", () => {
    expect(createStyle(false).red("x")).toBe("x");
    expect(createStyle(true).red("x")).toBe("\u001b[31mx\u001b[39m");
    expect(visibleWidth(createStyle(true).bold("héllo"))).toBe(5);
  });
});
