// Types of the parse-prometheus-text-format package (it ships none): a port of the official
// Python client's text parser, with prom2json-shaped output (values as strings).
declare module "parse-prometheus-text-format" {
  export interface PromSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly timestamp_ms?: string;
  }
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: string;
    readonly metrics: readonly PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
