// A strict parser of the Prometheus text exposition format (0.0.4), for round-trip tests.
// Beyond the syntax it rejects what a Prometheus server would not ingest: a family that
// appears twice, a sample outside its family, and two samples of one series (same name,
// same label set) — a duplicate series.
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface ParsedFamily {
  name: string;
  type: string;
  help: string;
  samples: ParsedSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels = Object.create(null) as Record<string, string>;
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq < 0) throw new Error(`bad labels in ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name} in ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted in ${line}`);
    let j = eq + 2;
    let value = "";
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new Error(`unterminated label value in ${line}`);
      if (c === "\\") {
        const n = text[j + 1];
        if (n === "n") value += "\n";
        else if (n === "\\") value += "\\";
        else if (n === '"') value += '"';
        else throw new Error(`bad escape \\${n} in ${line}`);
        j += 2;
        continue;
      }
      if (c === '"') break;
      if (c === "\n") throw new Error(`raw newline in label value in ${line}`);
      value += c;
      j++;
    }
    if (name in labels) throw new Error(`duplicate label ${name} in ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
    else if (i < text.length) throw new Error(`expected , after label in ${line}`);
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return Number.NaN;
  const v = Number(text);
  if (text.trim() === "" || Number.isNaN(v)) throw new Error(`bad sample value ${text}`);
  return v;
}

export function parsePrometheus(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  const series = new Set<string>();
  if (text !== "" && !text.endsWith("\n")) throw new Error("exposition must end with a newline");
  let current: ParsedFamily | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# HELP ")) {
      const rest = line.slice(7);
      const sp = rest.indexOf(" ");
      const name = rest.slice(0, sp);
      if (!NAME.test(name)) throw new Error(`bad family name ${name}`);
      if (families.has(name)) throw new Error(`family ${name} appears twice`);
      current = { name, type: "untyped", help: rest.slice(sp + 1), samples: [] };
      families.set(name, current);
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      if (current === undefined || current.name !== name) throw new Error(`TYPE without HELP for ${name}`);
      if (current.samples.length > 0) throw new Error(`TYPE after samples for ${name}`);
      current.type = type as string;
      continue;
    }
    if (line.startsWith("#")) continue;
    const brace = line.indexOf("{");
    let name: string;
    let labels = Object.create(null) as Record<string, string>;
    let valueText: string;
    if (brace >= 0) {
      name = line.slice(0, brace);
      const close = line.lastIndexOf("}");
      labels = parseLabels(line.slice(brace + 1, close), line);
      valueText = line.slice(close + 2);
    } else {
      const sp = line.indexOf(" ");
      name = line.slice(0, sp);
      valueText = line.slice(sp + 1);
    }
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    if (current === undefined || current.name !== name) throw new Error(`sample ${name} outside its family`);
    // Prometheus identifies a series by its name and label set (label order does not matter)
    const identity = JSON.stringify([name, Object.keys(labels).sort().map((label) => [label, labels[label]])]);
    if (series.has(identity)) throw new Error(`duplicate series: ${line}`);
    series.add(identity);
    current.samples.push({ name, labels, value: parseValue(valueText) });
  }
  return families;
}
