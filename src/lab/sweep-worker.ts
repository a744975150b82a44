// The module each thread of the sweep's pool loads (tinypool calls its default export per task).
import { runSweepTask } from "./run-task.js";

export default runSweepTask;
