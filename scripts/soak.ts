// `npm run soak -- [--events N] [--seed S] [--cluster-runs R] [--only state|cluster]`:
// the soak lives in test/testing/soak.ts (type-checked with the tests); this is its command.
import { main } from "../test/testing/soak.ts";

process.exitCode = await main(process.argv.slice(2));
