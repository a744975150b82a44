// Regenerates docs/report-schema.json from the zod definition:
//   npx tsx src/cli/write-report-schema.ts
// A test fails when the published file and the definition differ.
import { writeFileSync } from "node:fs";
import { reportJsonSchema } from "./report-schema.js";

const target = new URL("../../docs/report-schema.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(reportJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
