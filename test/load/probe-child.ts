// Runs one probe run against its own reference node in this process and prints the outcome as
// one JSON line: fault cases run in separate processes so one run's analysis never stalls
// another's timing. Usage: node --import tsx test/load/probe-child.ts '<json ChildSpec>'
import { probeReference, RESULT_MARK, type ChildSpec, type ProbeRun } from './reference-harness.js';

{
  const spec = JSON.parse(process.argv[2] ?? '{}') as ChildSpec;
  const { faults, variants, ...rest } = spec.options;
  const run: ProbeRun = await probeReference(
    { ...rest, faults: new Set(faults ?? []), variants: new Set(variants ?? []) },
    { selected: spec.only ? (id) => spec.only!.includes(id) : undefined, maxRequests: spec.maxRequests },
  );
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(run)}\n`);
}
