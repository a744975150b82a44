// ANSI styling for the summary. Colour only when the stream is a terminal and the user did not
// opt out (https://no-color.org: NO_COLOR set to anything non-empty disables it); FORCE_COLOR
// turns it on for terminals that do not say they are one.

export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function shouldUseColor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const identity = (text: string): string => text;

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return { enabled, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

const ANSI_PATTERN = /\u001b\[[0-9;]*m/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Width in terminal columns of text that may contain ANSI codes (every code point counts one). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const _ of stripAnsi(text)) width += 1;
  return width;
}
