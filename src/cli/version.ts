// The command shows the package version; the sweep (src/lab) keys its results by it too.
export { packageVersion } from "../util/package-version.js";
