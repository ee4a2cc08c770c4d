// `npm test` as CI runs it (tools/run-tests.ts, with Chromium, nginx and Prometheus required),
// timed whole, and what bounds it from below: the real-time files run at normal priority, as many
// at once as there are cores, beside the rest at the lowest. The group's own duration, which
// node:test prints at the end of its report, is the least the whole can take. Also counted: the
// tests a stalled machine made skip their timing assertions ("its timing measured the machine"),
// which on a quiet machine must be none.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './child.js';
import { figure, missingFigure, type Figure } from './figures.js';
import { gnuTimeCpuMs, underGnuTime } from './command.js';
import { REAL_TIME_HEADER } from '../run-tests.js';
import { TIMING_SKIP_WORDS } from '../../test/support/stalls.js';

/** The bound on the whole of `npm test` on a quiet 2-core machine, s. */
export const NPM_TEST_TARGET_S = 150;

export interface TestOutput {
  /** Each group's own duration (node:test's closing `duration_ms`), ms. */
  restMs?: number;
  realTimeMs?: number;
  tests?: number;
  failed?: number;
  /** The titles of the tests skipped because the machine held their run up. */
  timingSkips: string[];
}

/**
 * Reads the report of `npm test`. The real-time group's report is printed whole when the group ends,
 * under its header, up to its closing `duration_ms`; the rest's streams around it.
 */
export function parseTestOutput(text: string): TestOutput {
  const at = text.indexOf(REAL_TIME_HEADER);
  const close = at === -1 ? -1 : text.slice(at).search(/^ℹ duration_ms [\d.]+$/m);
  const end = close === -1 ? text.length : text.indexOf('\n', at + close) + 1 || text.length;
  const [rest, realTime] = at === -1 ? [text, ''] : [text.slice(0, at) + text.slice(end), text.slice(at, end)];
  const last = (part: string, key: string): number | undefined => {
    const all = [...part.matchAll(new RegExp(`^ℹ ${key} ([\\d.]+)$`, 'gm'))];
    return all.length ? Number(all.at(-1)![1]) : undefined;
  };
  const sum = (key: string): number | undefined => {
    const both = [last(rest, key), last(realTime, key)].filter((v): v is number => v !== undefined);
    return both.length ? both.reduce((a, b) => a + b, 0) : undefined;
  };
  return {
    restMs: last(rest, 'duration_ms'),
    realTimeMs: realTime ? last(realTime, 'duration_ms') : undefined,
    tests: sum('tests'),
    failed: sum('fail'),
    timingSkips: text
      .split('\n')
      .filter((l) => l.trimStart().startsWith('﹣') && l.includes(TIMING_SKIP_WORDS))
      .map((l) =>
        l
          .trim()
          .slice(1)
          .trim()
          .replace(/ \([\d.]+ms\) #.*$/, ''),
      ),
  };
}

/** One `npm test` in the project, its report kept in `outRoot`/npm-test.log. */
async function runNpmTest(outRoot: string): Promise<{ wallMs: number; cpuMs?: number; code: number; text: string }> {
  const cpuFile = join(outRoot, 'npm-test.cpu');
  const [cmd, ...args] = underGnuTime(['npm', 'test'], cpuFile);
  const env = {
    ...process.env,
    CHAINPROBE_REQUIRE_BROWSER: '1',
    CHAINPROBE_REQUIRE_NGINX: '1',
    CHAINPROBE_REQUIRE_PROMETHEUS: '1',
  };
  let text = '';
  const t0 = performance.now();
  const code = await new Promise<number>((resolveP, reject) => {
    const child = spawn(cmd!, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    // Bounded: CI gives the whole job 90 minutes.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30 * 60_000);
    child.once('error', reject);
    child.once('close', (c) => {
      clearTimeout(timer);
      resolveP(c ?? 1);
    });
  });
  const wallMs = performance.now() - t0;
  writeFileSync(join(outRoot, 'npm-test.log'), text);
  const cpuMs = gnuTimeCpuMs(cpuFile);
  return { wallMs, ...(cpuMs !== undefined && { cpuMs }), code, text };
}

export async function benchTests(o: { reps: number; outRoot: string; log: (l: string) => void }): Promise<Figure[]> {
  const group = '`npm test` (issue 41)';
  const runs: Awaited<ReturnType<typeof runNpmTest>>[] = [];
  const parsed: TestOutput[] = [];
  for (let i = 0; i < o.reps; i++) {
    const r = await runNpmTest(o.outRoot);
    const p = parseTestOutput(r.text);
    o.log(`bench: npm test ${i + 1}/${o.reps}: exit ${r.code} in ${(r.wallMs / 1000).toFixed(0)} s`);
    if (r.code !== 0)
      return [
        missingFigure(
          { id: 'tests.whole', group, label: 'the whole of `npm test`', unit: 's' },
          `npm test exited ${r.code} (${p.failed ?? '?'} failed; its report: ${join(o.outRoot, 'npm-test.log')})`,
        ),
      ];
    runs.push(r);
    parsed.push(p);
  }
  const s = (ms: number | undefined) => (ms === undefined ? NaN : ms / 1000);
  const skips = parsed.flatMap((p) => p.timingSkips);
  return [
    figure({
      id: 'tests.whole',
      group,
      label: 'the whole of `npm test`, as CI runs it (Chromium, nginx and Prometheus required)',
      unit: 's',
      values: runs.map((r) => s(r.wallMs)),
      target: { op: '<=', value: NPM_TEST_TARGET_S },
      note: `${parsed[0]?.tests ?? '?'} tests; its static checks (type-check, drift, formatter) included`,
    }),
    figure({
      id: 'tests.cpu',
      group,
      label: 'its CPU (user + system, every process)',
      unit: 's',
      values: runs.map((r) => s(r.cpuMs)),
      note: "GNU time's; on 2 cores the whole cannot take less than half of it",
    }),
    figure({
      id: 'tests.real-time',
      group,
      label: 'of it, at least: the real-time files alone (as many at once as there are cores, at normal priority)',
      unit: 's',
      values: parsed.map((p) => s(p.realTimeMs)),
      note: "the real-time group's own duration (tools/run-tests.ts REAL_TIME): the files whose assertions rest on real time, which nothing else may starve",
    }),
    figure({
      id: 'tests.rest',
      group,
      label: 'the other files, beside them at the lowest priority',
      unit: 's',
      values: parsed.map((p) => s(p.restMs)),
    }),
    figure({
      id: 'tests.timing-skips',
      group,
      label: 'tests that skipped their timing assertions because the machine held them up',
      unit: 'tests',
      values: parsed.map((p) => p.timingSkips.length),
      target: { op: '<=', value: 0 },
      note: skips.length ? `skipped: ${[...new Set(skips)].join('; ')}` : 'none',
    }),
  ];
}
