import { main } from "../../src/cli/main.js";
import { captureIo } from "./fixtures.js";

/** `spanwork ARGS` run in this process with the real simulator, in `cwd`, with no terminal. */
export async function spanworkInProcess(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const captured = captureIo({ cwd });
  const code = await main(args, { io: captured.io });
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}
