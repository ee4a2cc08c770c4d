// The package as a user installs it, for the bench: the product compiled as `npm pack` builds it
// (tools/build.ts, its prepack) into reports/bench/installed/node_modules/chainprobe/dist/, with
// package.json, schemas/ and docs/ beside it as the tarball has them. Its code finds no
// src/package.ts at its root, so it runs as installed (src/package.ts INSTALLED); its packages
// resolve up the folders from the clone's node_modules, as an install's resolve from the project's.
// Built once per bench process, never into the clone's own dist/: other work may be running it.
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buildPackage } from '../build.js';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package.js';

export interface InstalledPackage {
  /** node_modules/chainprobe of the install. */
  root: string;
  /** Its compiled JavaScript (root/dist). */
  dist: string;
  /** The bin as npm links it: node_modules/.bin/chainprobe, to dist/cli/main.js. */
  bin: string;
  /** The folder the package is installed into (a project with it in node_modules). */
  project: string;
  /** How long the build took, ms. */
  buildMs: number;
}

/** What the tarball holds besides dist/ (package.json `files`, and what npm always packs). */
const SHIPPED = ['package.json', 'README.md', 'schemas', 'docs'];

let installed: Promise<InstalledPackage> | undefined;

/** The installed package (built on the first call of the process). */
export function installedPackage(): Promise<InstalledPackage> {
  installed ??= (async () => {
    const project = join(REPO_ROOT, 'reports', 'bench', 'installed');
    const root = join(project, 'node_modules', 'chainprobe');
    const t0 = performance.now();
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    await buildPackage(join(root, 'dist'));
    for (const f of SHIPPED) cpSync(join(REPO_ROOT, f), join(root, f), { recursive: true });
    const bin = join(project, 'node_modules', '.bin', 'chainprobe');
    rmSync(bin, { force: true });
    mkdirSync(join(bin, '..'), { recursive: true });
    symlinkSync(join('..', 'chainprobe', 'dist', 'cli', 'main.js'), bin);
    return { root, dist: join(root, 'dist'), bin, project, buildMs: performance.now() - t0 };
  })();
  return installed;
}
