#!/usr/bin/env node
// Keeps better-sqlite3's compiled addon in npm's cache, so that the next `npm ci` on this machine
// unpacks it in a second instead of compiling it for ninety (no prebuilt binary can be downloaded
// here: its install script falls back to node-gyp).
//
// better-sqlite3 installs through prebuild-install, which looks for a cached download in
// ~/.npm/_prebuilds under a name made from the download's URL before it asks the network. This
// script packs the addon `npm ci` just compiled into that file, as a prebuilt release is packed
// (build/Release/better_sqlite3.node in a .tar.gz), using prebuild-install's own functions for the
// name. The name carries the package's version, Node's ABI, the platform and the architecture, so
// another Node or another version compiles anew. It runs after `npm ci` (.ci/run); a failure here
// only costs the next install its ninety seconds, so it says why and exits 0.
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

try {
  const fromRoot = createRequire(path.join(root, 'package.json'));
  const pkgFile = fromRoot.resolve('better-sqlite3/package.json');
  const pkgDir = path.dirname(pkgFile);
  const fromPkg = createRequire(pkgFile);
  const pkg = fromPkg('./package.json');
  const fromInstaller = createRequire(fromPkg.resolve('prebuild-install/package.json'));
  const util = fromInstaller('./util.js');
  const opts = fromInstaller('./rc.js')(pkg);
  const cached = util.cachedPrebuild(util.getDownloadUrl({ ...opts, pkg }));
  const addon = path.join('build', 'Release', 'better_sqlite3.node');
  if (existsSync(cached)) {
    console.log(`better-sqlite3's addon is in npm's cache already (${path.basename(cached)})`);
  } else if (!existsSync(path.join(pkgDir, addon))) {
    console.log(`better-sqlite3 has no ${addon} to keep: nothing cached`);
  } else {
    const tar = fromInstaller('tar-fs');
    mkdirSync(path.dirname(cached), { recursive: true });
    // Written under another name and renamed: an install reading meanwhile finds all of it or none.
    const partial = `${cached}.${process.pid}.partial`;
    try {
      await pipeline(tar.pack(pkgDir, { entries: [addon] }), createGzip(), createWriteStream(partial));
      renameSync(partial, cached);
    } finally {
      rmSync(partial, { force: true });
    }
    console.log(`better-sqlite3's addon kept in npm's cache for the next npm ci: ${cached}`);
  }
} catch (err) {
  console.log(`better-sqlite3's addon was not cached (the next npm ci compiles it again): ${err instanceof Error ? err.message : String(err)}`);
}
