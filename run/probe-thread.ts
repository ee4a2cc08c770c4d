// One horizon node's rate-limit plan in a worker thread of its own. Several plans run at once in a
// fleet run; in one event loop, one plan's model work (the replay analyses between phases) would
// hold back the timers of the others and their pacing would suffer. Each thread has its own event
// loop; the request budget is the run's counter file, shared by every thread and process.
// A thread has no TypeScript loader: from the sources it runs this module bundled by esbuild (which
// tsx already brings), dependencies included; the package's compiled module runs as it is.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parentPort, workerData, Worker } from 'node:worker_threads';
import { runProbes } from '../load/run.js';
import { secretsOf, type ResolvedHorizon, type ResolvedTarget } from '../src/target-file/types.js';
import { Redactor } from '../src/record/redact.js';
import { COMPILED } from '../src/package.js';
import type { ProbesOutcome, ProgressEvent, RunContext } from '../src/stages.js';

interface ThreadInput {
  target: ResolvedTarget;
  horizon: ResolvedHorizon;
  rules: string[];
  outDir: string;
  workDir: string;
  budgetFile: string;
  tallyFile?: string;
  deadline: number;
  seed: number;
  recordExchanges?: boolean;
}

type FromThread =
  | { type: 'progress'; event: ProgressEvent }
  | { type: 'done'; outcome: ProbesOutcome }
  | { type: 'failed'; message: string };

let bundled: Promise<URL> | undefined;

/** Where the bundle is kept between runs, with the sizes and times of the files it was built from. */
const CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/chainprobe/', import.meta.url));
const stamp = (path: string) => {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

async function buildThreadScript(outfile: string): Promise<string[]> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    outfile,
    metafile: true,
    logLevel: 'error',
    // Modules that find files or packages from their own location (createRequire(import.meta.url))
    // keep doing so from where they are in the repository, not from the bundle's folder.
    plugins: [
      {
        name: 'source-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replace(
              /\bimport\.meta\.url\b/g,
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
    // Bundled CommonJS dependencies call require(): give the ES module one.
    banner: {
      js: `import { createRequire as __chainprobeRequire } from 'node:module'; const require = __chainprobeRequire(${JSON.stringify(import.meta.url)});`,
    },
  });
  return Object.keys(result.metafile.inputs).map((p) => resolve(p));
}

/**
 * This module as one plain JavaScript file a worker thread can load: built once, kept under
 * node_modules/.cache and rebuilt when a file it was built from changes (a temporary build when
 * that folder cannot be written).
 */
function threadScript(): Promise<URL> {
  if (COMPILED) return Promise.resolve(new URL(import.meta.url));
  bundled ??= (async () => {
    // Named for this checkout: worktrees may share one node_modules (a symlink), and the stamps
    // below only see their own checkout's files.
    const checkout = createHash('sha256')
      .update(fileURLToPath(import.meta.url))
      .digest('hex')
      .slice(0, 12);
    const outfile = join(CACHE_DIR, `probe-thread-${checkout}.mjs`);
    const stampsFile = join(CACHE_DIR, `probe-thread-${checkout}.inputs.json`);
    try {
      const stamps = JSON.parse(readFileSync(stampsFile, 'utf8')) as Record<string, string>;
      if (existsSync(outfile) && Object.entries(stamps).every(([path, s]) => stamp(path) === s))
        return pathToFileURL(outfile);
    } catch {
      // no usable cache: build
    }
    try {
      mkdirSync(CACHE_DIR, { recursive: true });
      // Built beside, then renamed: a concurrent run never loads a half-written bundle.
      const tmp = `${outfile}.${process.pid}.tmp.mjs`;
      const inputs = await buildThreadScript(tmp);
      renameSync(tmp, outfile);
      writeFileSync(stampsFile, JSON.stringify(Object.fromEntries(inputs.map((p) => [p, stamp(p)]))));
      return pathToFileURL(outfile);
    } catch {
      const dir = mkdtempSync(join(tmpdir(), 'chainprobe-thread-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      await buildThreadScript(join(dir, 'probe-thread.mjs'));
      return pathToFileURL(join(dir, 'probe-thread.mjs'));
    }
  })();
  return bundled;
}

/** Whether plans can run in threads here (the bundle builds); otherwise they share this thread. */
export function threadsAvailable(): Promise<boolean> {
  return threadScript().then(
    () => true,
    () => false,
  );
}

/** Runs `runProbes(ctx, horizon)` in a worker thread; aborting ctx.signal stops it sending at once. */
export async function runProbesInThread(
  ctx: RunContext,
  horizon: ResolvedHorizon,
  rules: readonly string[],
): Promise<ProbesOutcome> {
  const input: ThreadInput = {
    target: ctx.target,
    horizon,
    rules: rules.filter(ctx.selected),
    outDir: ctx.outDir,
    workDir: ctx.workDir,
    budgetFile: ctx.budgetFile,
    tallyFile: ctx.tallyFile,
    deadline: ctx.deadline,
    seed: ctx.seed,
    recordExchanges: ctx.recordExchanges,
  };
  const worker = new Worker(await threadScript(), { workerData: input });
  const onAbort = () => worker.postMessage({ type: 'abort' });
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  return new Promise<ProbesOutcome>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener('abort', onAbort);
      f();
    };
    worker.on('message', (m: FromThread) => {
      if (m.type === 'progress') ctx.progress(m.event);
      else if (m.type === 'done') settle(() => resolve(m.outcome));
      else settle(() => reject(new Error(m.message)));
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`the probe thread stopped (exit ${code}) before its results`))),
    );
  });
}

async function threadMain(): Promise<void> {
  const input = workerData as ThreadInput;
  const port = parentPort!;
  const controller = new AbortController();
  port.on('message', (m: { type?: string }) => {
    if (m?.type === 'abort') controller.abort();
  });
  const rules = new Set(input.rules);
  const ctx: RunContext = {
    target: input.target,
    selected: (id) => rules.has(id),
    outDir: input.outDir,
    workDir: input.workDir,
    budgetFile: input.budgetFile,
    tallyFile: input.tallyFile,
    deadline: input.deadline,
    seed: input.seed,
    // The thread's own, from the same target and seed: the run's object cannot cross into it.
    redactor: new Redactor(secretsOf(input.target), input.seed),
    recordExchanges: input.recordExchanges,
    signal: controller.signal,
    progress: (event) => port.postMessage({ type: 'progress', event } satisfies FromThread),
  };
  try {
    const outcome = await runProbes(ctx, input.horizon);
    port.postMessage({ type: 'done', outcome } satisfies FromThread);
  } catch (e) {
    port.postMessage({
      type: 'failed',
      message: e instanceof Error ? e.message.split('\n')[0]! : String(e),
    } satisfies FromThread);
  }
  port.close();
}

if (parentPort && workerData && (workerData as Partial<ThreadInput>).horizon) void threadMain();
