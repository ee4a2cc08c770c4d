// Running `chainprobe compare` (the bin's command, cli/main.ts) as a child process, and reading
// what a run or a comparison wrote.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../safety/support/cli.js';
import { commandArgs } from '../support/command.js';
import type { ResultsFile } from '../../src/results.js';
import type { Comparison } from '../../src/compare/types.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `chainprobe compare <args>` from the clone's sources. */
export function runCompare(args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, [...commandArgs('cli/main.ts'), 'compare', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const resultsIn = (dir: string): ResultsFile => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));

export const comparisonIn = (dir: string): Comparison => resultsIn(dir).comparison as Comparison;

/** The report files a run or a comparison writes. */
export const REPORTS = ['results.json', 'index.html', 'junit.xml'];

export const reportsIn = (dir: string): string[] => REPORTS.filter((f) => existsSync(join(dir, f)));
