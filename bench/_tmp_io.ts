import * as fs from "node:fs"; import * as path from "node:path"; import { randomBytes } from "node:crypto";
import { FileStore } from "../src/spill/index.js";
const n = 4000; const vals = Array.from({length:n}, () => randomBytes(65536 + 8));
const now = () => performance.now();
for (let r = 0; r < 3; r++) {
  const d = fs.mkdtempSync("/dev/shm/io-");
  let t = now(); for (let i = 0; i < n; i++) fs.writeFileSync(path.join(d, "f" + i), vals[i]!); const w = now() - t;
  const st = new FileStore({ directory: "/dev/shm" });
  t = now(); for (let i = 0; i < n; i++) st.write("k" + i, vals[i]!); const sw = now() - t;
  t = now(); for (let i = 0; i < n; i++) fs.readFileSync(path.join(d, "f" + i)); const rd = now() - t;
  t = now(); for (let i = 0; i < n; i++) st.read("k" + i); const sr = now() - t;
  st.close(); fs.rmSync(d, {recursive: true});
  console.log(`µs: writeFileSync ${(w/n*1000).toFixed(0)} store.write ${(sw/n*1000).toFixed(0)} readFileSync ${(rd/n*1000).toFixed(0)} store.read ${(sr/n*1000).toFixed(0)}`);
}
