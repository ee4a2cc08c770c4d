// How a test starts one of chainprobe's commands as a process of its own. Under `npm test` the
// command runs from dist/, which the runner builds from these very sources before the first test
// (tools/run-tests.ts): a clone's dist/ behaves as its sources do (src/package.ts), without the
// TypeScript loader each process would otherwise pay for. A test file run alone, with no build,
// runs the source under tsx, as the npm script does.
import { packagePath, sourceArgs } from '../../src/package.js';

/** Set by tools/run-tests.ts once dist/ is built from the sources under test. */
export const BUILT_ENV = 'CHAINPROBE_TEST_BUILT';

/** Whether this test process may run the commands from dist/. */
export const built = (): boolean => process.env[BUILT_ENV] === '1';

/**
 * Node's arguments that run a command script given by its source path from the repository root
 * (`cli/start.ts`, `cli/main.ts`), its arguments to follow.
 */
export function commandArgs(source: string): string[] {
  if (!/^(cli|tools)\/[\w-]+\.ts$/.test(source)) throw new Error(`not a command script: ${source}`);
  // tools/ ships nothing: its scripts run from the sources only.
  if (built() && source.startsWith('cli/')) return [packagePath('dist', source.replace(/\.ts$/, '.js'))];
  return sourceArgs(source);
}
