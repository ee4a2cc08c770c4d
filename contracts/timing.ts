// What a contract test's time went to, measured in its worker: the body's wall time, the worker's
// CPU meanwhile, and the time at least one of its requests was in flight (waiting on the network
// and the target). Read by the bench's trace (docs/benchmarks.md); cheap enough to take always.
import type { Exchange } from '../src/record/recorder.js';
import type { TestTiming } from './protocol.js';

/** ms during which at least one exchange was in flight (the union of their send..receive spans). */
export function inFlightMs(exchanges: readonly Pick<Exchange, 'sentAt' | 'receivedAt'>[]): number {
  const spans = exchanges
    .filter((x) => x.receivedAt !== undefined)
    .map((x) => [x.sentAt, x.receivedAt!] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of spans) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

const cpuMsOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const round = (ms: number) => Math.round(ms * 10) / 10;

/** Starts measuring a test; the function it returns ends the measurement over the test's exchanges. */
export function startTiming(): (exchanges: readonly Exchange[]) => TestTiming {
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const workerCpuAtStartMs = round(cpuMsOf(cpu0));
  const workerAgeAtStartMs = round(process.uptime() * 1000);
  return (exchanges) => ({
    bodyMs: round(performance.now() - wall0),
    cpuMs: round(cpuMsOf(process.cpuUsage(cpu0))),
    networkMs: inFlightMs(exchanges),
    requests: exchanges.length,
    workerCpuAtStartMs,
    workerAgeAtStartMs,
  });
}
