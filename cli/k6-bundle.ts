// `chainprobe k6-bundle`: the k6 entry scripts (the rate-limit probes for `k6 run`, load/k6/README.md)
// written into a folder. The package ships them bundled (npm run build); a clone type-checks and
// bundles load/k6/entries/*.ts here, with esbuild.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWith, UsageError } from './fatal.js';
import { commandLine, defineCommand, isMain } from './args.js';
import { INSTALLED } from '../src/package.js';

export const K6_BUNDLE = defineCommand({
  invocation: 'npm run k6-bundle --',
  prefix: 'chainprobe k6-bundle',
  summary:
    'Writes the k6 entry scripts into a folder, ready for `k6 run` (the rate-limit probes under k6, with the same results.json; see load/k6/README.md).',
  flags: {
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: INSTALLED ? 'chainprobe-k6' : 'load/k6/dist',
      help: 'where the scripts go',
    },
    'skip-typecheck': {
      type: 'boolean',
      help: 'in a clone: bundle without type-checking the k6 scripts first (the package ships them checked)',
    },
  },
  examples: [
    'npm run k6-bundle',
    'k6 run -e CHAINPROBE_HORIZON_ENDPOINT=https://node-c.example load/k6/dist/rate-limits.js',
  ],
  exit: ['0  written', '1  the k6 scripts do not type-check or bundle', '2  bad flag, or --out not writable'],
});

/** The bundles npm run build put beside the compiled code. */
const SHIPPED = fileURLToPath(new URL('../load/k6/', import.meta.url));

async function main(): Promise<number> {
  const { values } = commandLine(K6_BUNDLE);
  const out = values.out;
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw new UsageError(`--out ${out}: cannot create the folder (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let files: string[];
  if (INSTALLED) {
    files = readdirSync(SHIPPED)
      .filter((f) => f.endsWith('.js'))
      .map((f) => {
        copyFileSync(join(SHIPPED, f), join(out, f));
        return join(out, f);
      });
  } else {
    const { bundleK6, typecheckK6 } = await import('../load/k6/build.js');
    const problems = values['skip-typecheck'] ? undefined : typecheckK6();
    if (problems) {
      process.stderr.write(`chainprobe k6-bundle: the k6 scripts do not type-check:\n${problems}\n`);
      return 1;
    }
    files = await bundleK6(out);
  }
  for (const f of files) process.stdout.write(`${relative(process.cwd(), f) || f}\n`);
  return 0;
}

/** Runs the command on process.argv (npm run k6-bundle, or chainprobe k6-bundle). */
export function cli(): void {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(K6_BUNDLE.prefix, e),
  );
}

if (isMain(import.meta.url)) cli();
