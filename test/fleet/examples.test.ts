// The fleet examples parse (a YAML parser, not text matching) and name real things: commands of
// package.json with flags the commands take, the k6 bundle our build writes, the k6 variables our
// config reads; secrets only through the secret stores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { K6_ENV } from '../../load/k6/config.js';
import { K6_ENTRIES_DIR } from '../../load/k6/build.js';
import { join } from 'node:path';

const read = (p: string) => readFileSync(new URL(`../../examples/${p}`, import.meta.url), 'utf8');
const scripts = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  environment?: string;
  strategy?: { 'fail-fast'?: boolean; matrix: Record<string, string[]> };
  steps: Step[];
}

/** The npm command of a `run:` line and its flags, checked against package.json and the CLI's flags. */
const FLAGS: Record<string, string[]> = {
  start: ['--target', '--out', '--only', '--baseline', '--history'],
  merge: ['--out'],
};
function npmCommand(run: string): { script: string; args: string[] } {
  const m = /^npm (ci|start|run (\S+))(?: -- (.*))?$/.exec(run.trim());
  assert.ok(m, `a plain npm command: ${run}`);
  const script = m[1] === 'ci' ? 'ci' : m[1] === 'start' ? 'start' : m[2]!;
  if (script !== 'ci') assert.ok(scripts[script], `package.json has the script "${script}"`);
  // Words, keeping an expression such as ${{ matrix.deployment }} inside its word.
  const args = (m[3] ?? '').match(/(?:\$\{\{[^}]*\}\}|\S)+/g) ?? [];
  for (const a of args.filter((x) => x.startsWith('--')))
    assert.ok(FLAGS[script]?.includes(a), `npm ${script} takes ${a}`);
  for (const file of ['cli/start.ts', 'cli/merge.ts']) assert.ok(existsSync(new URL(`../../${file}`, import.meta.url)));
  return { script, args };
}

test("the fleet workflow: a job matrix over deployments, then a merge of every job's artifact", () => {
  const wf = parse(read('github-actions-fleet.yml')) as { jobs: Record<string, Job> };
  const run = wf.jobs.chainprobe!;
  const deployments = run.strategy!.matrix.deployment!;
  assert.ok(deployments.length >= 2 && run.strategy!['fail-fast'] === false);
  assert.equal(
    run.environment,
    '${{ matrix.deployment }}',
    "each job takes its deployment's secrets from its environment",
  );
  const start = run.steps.find((s) => s.run?.startsWith('npm start'))!;
  const { args } = npmCommand(start.run!);
  const out = args[args.indexOf('--out') + 1]!;
  assert.equal(args[args.indexOf('--target') + 1], 'targets/${{ matrix.deployment }}.json');
  for (const [name, value] of Object.entries(start.env ?? {}))
    assert.equal(value, `\${{ secrets.${name} }}`, "secrets only as the run step's env");
  const upload = run.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
  assert.equal(upload.if, '${{ always() }}');
  assert.equal(upload.with!.path, `${out}/`, 'the job uploads the folder it wrote');
  assert.match(upload.with!.name!, /^chainprobe-\$\{\{ matrix\.deployment \}\}$/);

  const merge = wf.jobs.merge!;
  assert.equal(merge.needs, 'chainprobe');
  assert.equal(merge.if, '${{ always() }}', 'the merge reports whatever the matrix did');
  const download = merge.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))!;
  assert.equal(download.with!.pattern, 'chainprobe-*');
  const m = npmCommand(merge.steps.find((s) => s.run?.startsWith('npm run merge'))!.run!);
  assert.equal(m.args[0], download.with!.path, 'the merge reads the folder the artifacts were downloaded to');
  assert.doesNotMatch(JSON.stringify(merge), /secrets\./, 'the merge needs no secret');
  for (const job of Object.values(wf.jobs)) for (const s of job.steps) if (s.run) npmCommand(s.run);
});

test('the k6-operator example: one TestRun per horizon node, parallelism 1, the bundle, tokens from a Secret', () => {
  const docs = parseAllDocuments(read('k6-operator/testruns.yaml')).map((d) => d.toJS() as Record<string, any>);
  const runs = docs.filter((d) => d.kind === 'TestRun');
  assert.ok(runs.length >= 2);
  const bundle = 'rate-limits.js';
  assert.ok(
    existsSync(join(K6_ENTRIES_DIR, bundle.replace(/\.js$/, '.ts'))),
    'the bundle is built from a real entry script',
  );
  const known = new Set<string>(Object.values(K6_ENV));
  const nodes = new Set<string>();
  const outs = new Set<string>();
  for (const r of runs) {
    assert.equal(r.apiVersion, 'k6.io/v1alpha1');
    assert.equal(r.spec.parallelism, 1, `${r.metadata.name}: one runner per token`);
    assert.equal(r.spec.script.configMap.file, bundle);
    assert.match(r.spec.arguments, new RegExp(`-e ${K6_ENV.endpoint}=https://`));
    const env = new Map<string, any>(r.spec.runner.env.map((e: any) => [e.name, e]));
    for (const name of env.keys()) assert.ok(known.has(name), `${name} is a variable the k6 config reads`);
    const token = env.get(K6_ENV.token);
    assert.ok(token.valueFrom?.secretKeyRef?.name && token.value === undefined, 'the token comes from a Secret');
    nodes.add(env.get(K6_ENV.nodeName).value);
    const out: string = env.get(K6_ENV.out).value;
    outs.add(out);
    const mount = r.spec.runner.volumeMounts.find((v: any) => out.startsWith(`${v.mountPath}/`));
    assert.ok(mount, `${out} is on a mounted volume`);
    const volume = r.spec.runner.volumes.find((v: any) => v.name === mount.name);
    assert.ok(
      docs.some(
        (d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name === volume.persistentVolumeClaim.claimName,
      ),
      'the volume is the shared claim',
    );
  }
  assert.equal(nodes.size, runs.length, 'each TestRun names its own node');
  assert.equal(outs.size, runs.length, 'each runner writes its own file');
  const readme = read('k6-operator/README.md');
  for (const line of readme.split('\n').filter((l) => /^\s*npm /.test(l))) npmCommand(line);
  assert.match(readme, /npm run merge -- k6-results --out/);
});
