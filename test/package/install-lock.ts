// A package-lock.json for an app that depends on nothing but the packed spanwork tarball, cut
// from the project's own lockfile: the runtime dependencies of spanwork and theirs, at the
// versions (and integrity hashes) the project locked. `npm ci --offline` then installs them
// from the npm cache alone. `npm install --offline TARBALL` would not: it resolves version
// ranges against registry metadata, which `npm ci` (what CI runs) never fetches into the cache.

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
  [field: string]: unknown;
}

interface Lockfile {
  packages: Record<string, LockEntry>;
}

export interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  license?: string;
}

/**
 * Where node (and npm) find `name` required from the package installed at `from`: its own
 * node_modules, then each enclosing one up to the top.
 */
function locate(lock: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`;
    if (Object.hasOwn(lock.packages, candidate)) return candidate;
    if (dir === "") return undefined;
    const parent = dir.lastIndexOf("/node_modules/");
    dir = parent < 0 ? "" : dir.slice(0, parent);
  }
}

/**
 * Where the registry serves a package's tarball. With it in the lockfile npm fetches the
 * tarball (from the cache) without the package's registry metadata, which a cache filled by
 * `npm install` may hold in another form than `npm ci` asks for.
 */
function tarballUrl(registry: string, path: string, version: string): string {
  const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  const base = name.startsWith("@") ? name.slice(name.indexOf("/") + 1) : name;
  return `${registry.endsWith("/") ? registry : `${registry}/`}${name}/-/${base}-${version}.tgz`;
}

/** The app's package.json and package-lock.json, as JSON values; `registry` is npm's configured registry. */
export function appInstallFiles(manifest: Manifest, projectLock: Lockfile, tarball: string, registry: string): { packageJson: object; packageLock: object } {
  const spec = `file:${tarball}`;
  const root = `node_modules/${manifest.name}`;
  const packages: Record<string, LockEntry> = Object.create(null) as Record<string, LockEntry>;
  packages[""] = { name: "spanwork-pack-test", dependencies: { [manifest.name]: spec } };
  packages[root] = {
    version: manifest.version,
    resolved: spec,
    dependencies: manifest.dependencies,
    peerDependencies: manifest.peerDependencies,
    peerDependenciesMeta: manifest.peerDependenciesMeta,
    bin: manifest.bin,
    engines: manifest.engines,
    license: manifest.license,
  };
  const pending: Array<[string, Record<string, string>]> = [["", manifest.dependencies ?? {}]];
  while (pending.length > 0) {
    const [from, dependencies] = pending.pop()!;
    for (const name of Object.keys(dependencies)) {
      const path = locate(projectLock, from, name);
      if (path === undefined) {
        // An optional dependency for another platform is simply not in the tree.
        if (from !== "" && Object.hasOwn(projectLock.packages[from]!.optionalDependencies ?? {}, name)) continue;
        throw new Error(`package-lock.json has no entry for ${name} (needed by ${from || manifest.name}); run npm install`);
      }
      if (Object.hasOwn(packages, path)) continue;
      const { dev: _dev, ...entry } = projectLock.packages[path]!;
      packages[path] = entry.resolved === undefined && entry.version !== undefined ? { ...entry, resolved: tarballUrl(registry, path, entry.version) } : entry;
      pending.push([path, { ...entry.dependencies, ...entry.optionalDependencies }]);
    }
  }
  return {
    packageJson: { name: "spanwork-pack-test", private: true, type: "module", dependencies: { [manifest.name]: spec } },
    packageLock: { name: "spanwork-pack-test", lockfileVersion: 3, requires: true, packages },
  };
}
