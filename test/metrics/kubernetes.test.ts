// examples/kubernetes/ without a cluster or an image daemon: every manifest is valid against the
// Kubernetes API schemas of kubernetes-models (its validators: types, required fields, formats; its
// API types, through the TypeScript compiler: no field the API server would reject as unknown),
// and does what docs/kubernetes.md says: the CronJob's chainprobe command line is one chainprobe
// takes, its target file loads and every variable it names comes from the Secret; the Indexed Job's
// pods run the parts `--shard` makes (its shell line run for each index) and the merge Job waits for
// them and merges what they write. The Dockerfile builds on a Node LTS slim image, installs the
// packed tarball and runs chainprobe as a non-root user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, PersistentVolumeClaim } from 'kubernetes-models/v1';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { parseCommand } from '../../cli/args.js';
import { START } from '../../cli/start-flags.js';
import { MERGE } from '../../cli/merge.js';
import { gatewayProblem } from '../../src/metrics/gateway.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { shardPieces } from '../../src/fleet/shard.js';
import { HANG_MS, SLOW_MACHINE_MS } from '../support/backstops.js';
import { ROOT } from './prometheus-support.js';

const DIR = join(ROOT, 'examples/kubernetes');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, judged field by field below
type Doc = Record<string, any>;

/** Each kind's model (its validator) and API type, by apiVersion/kind. */
const MODELS: Record<string, { model: new (data: Doc) => { validate(): void }; type: string; from: string }> = {
  'v1/ConfigMap': { model: ConfigMap, type: 'IConfigMap', from: 'kubernetes-models/v1/ConfigMap' },
  'v1/PersistentVolumeClaim': {
    model: PersistentVolumeClaim,
    type: 'IPersistentVolumeClaim',
    from: 'kubernetes-models/v1/PersistentVolumeClaim',
  },
  'batch/v1/CronJob': { model: CronJob, type: 'ICronJob', from: 'kubernetes-models/batch/v1/CronJob' },
  'batch/v1/Job': { model: Job, type: 'IJob', from: 'kubernetes-models/batch/v1/Job' },
};

const modelOf = (d: Doc) => MODELS[`${d.apiVersion}/${d.kind}`];

function manifests(): { file: string; docs: Doc[] }[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({
      file,
      docs: parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => {
        assert.deepEqual(d.errors, [], file);
        return d.toJS() as Doc;
      }),
    }));
}

const all = () => manifests().flatMap((m) => m.docs.map((d) => ({ ...m, doc: d })));
const named = (kind: string, name: string) =>
  all().find((x) => x.doc.kind === kind && x.doc.metadata?.name === name)?.doc;

/** Whether kubernetes-models' validator takes it; the first error when not. */
function validates(d: Doc): string | undefined {
  const m = modelOf(d);
  if (!m) return `no model for ${d.apiVersion} ${d.kind}`;
  try {
    new m.model(d).validate();
    return undefined;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

/** The TypeScript compiler's findings on the manifests as kubernetes-models' API types (unknown fields are excess properties). */
function typeErrors(docs: Doc[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-k8s-types-'));
  try {
    const lines = docs.map((d, i) => {
      const { type, from } = modelOf(d)!;
      return `import type { ${type} as T${i} } from '${from}';\nexport const m${i}: T${i} = ${JSON.stringify(d, null, 2)};\n`;
    });
    writeFileSync(join(dir, 'manifests.ts'), lines.join('\n'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          skipLibCheck: true,
          types: [],
          paths: { 'kubernetes-models/*': [join(ROOT, 'node_modules/kubernetes-models/*')] },
        },
        files: ['manifests.ts'],
      }),
    );
    const r = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8', timeout: HANG_MS });
    return `${r.stdout}${r.stderr}`.split('\n').filter((l) => /error TS/.test(l));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the judges: a wrong type, a missing required field and an unknown field are each found', () => {
  const good = named('CronJob', 'chainprobe-staging')!;
  assert.equal(validates(good), undefined);
  const wrongType = structuredClone(good);
  wrongType.spec.suspend = 'yes';
  assert.match(validates(wrongType)!, /suspend must be boolean/);
  const noSchedule = structuredClone(good);
  delete noSchedule.spec.schedule;
  assert.match(validates(noSchedule)!, /required property schedule/);
  const typo = structuredClone(good);
  typo.spec.jobTemplate.spec.template.spec.containers[0].agrs = ['--help'];
  assert.equal(
    validates(typo),
    undefined,
    "the validators let unknown fields through: the types' check is the one that finds them",
  );
  const found = typeErrors([typo]);
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(found[0]!, /'"?agrs"?' does not exist in type 'IContainer'/);
});

test('examples/kubernetes/*.yaml: every manifest valid against the Kubernetes API schemas, no unknown field', () => {
  const docs = all();
  assert.deepEqual(
    docs.map((x) => `${x.file} ${x.doc.kind}/${x.doc.metadata?.name}`),
    [
      'cronjob.yaml ConfigMap/chainprobe-staging-target',
      'cronjob.yaml PersistentVolumeClaim/chainprobe-staging-reports',
      'cronjob.yaml CronJob/chainprobe-staging',
      'fleet.yaml ConfigMap/chainprobe-fleet-target',
      'fleet.yaml PersistentVolumeClaim/chainprobe-fleet-reports',
      'fleet.yaml Job/chainprobe-fleet',
      'fleet.yaml Job/chainprobe-fleet-merge',
    ],
  );
  for (const { file, doc } of docs)
    assert.equal(validates(doc), undefined, `${file} ${doc.kind}/${doc.metadata?.name}`);
  assert.deepEqual(typeErrors(docs.map((x) => x.doc)), []);
});

/** A container's env: literal values, and the Secret keys the others come from. */
function envOf(c: Doc): {
  values: Record<string, string>;
  secrets: Record<string, { name: string; key: string; optional?: boolean }>;
} {
  const values: Record<string, string> = {};
  const secrets: Record<string, { name: string; key: string; optional?: boolean }> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) values[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) secrets[e.name] = e.valueFrom.secretKeyRef;
  }
  return { values, secrets };
}

/** Kubernetes' $(VAR) expansion of a container's command and args. */
const expand = (s: string, values: Record<string, string>) =>
  s.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => values[n] ?? m);

const podOf = (d: Doc): Doc => (d.kind === 'CronJob' ? d.spec.jobTemplate.spec.template.spec : d.spec.template.spec);

/** The mount path of the volume a container mounts from a ConfigMap or a claim of `kind`. */
function mountOf(pod: Doc, c: Doc, source: 'configMap' | 'persistentVolumeClaim'): { path: string; name: string } {
  const v = pod.volumes.find((x: Doc) => x[source] && c.volumeMounts.some((m: Doc) => m.name === x.name));
  assert.ok(v, `a ${source} volume mounted in ${c.name}`);
  return {
    path: c.volumeMounts.find((m: Doc) => m.name === v.name).mountPath,
    name: source === 'configMap' ? v.configMap.name : v.persistentVolumeClaim.claimName,
  };
}

/** The target file in a ConfigMap loads as chainprobe loads it, every variable it names set from the container's Secret refs. */
function judgeTarget(cm: Doc, key: string, c: Doc): ReturnType<typeof resolveTarget> {
  const text = cm.data[key] as string;
  const names = [...new Set([...text.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]!))];
  const { secrets } = envOf(c);
  for (const n of names)
    assert.ok(secrets[n] && !secrets[n]!.optional, `${n} comes from a Secret the pod cannot start without`);
  return resolveTarget(JSON.parse(text), Object.fromEntries(names.map((n) => [n, `value-of-${n}`])));
}

/** A pod's securityContext keeps it off root, and its containers unprivileged and read-only. */
function judgeSecurity(pod: Doc): void {
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.ok(pod.securityContext.runAsUser > 0);
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    assert.equal(c.securityContext.allowPrivilegeEscalation, false, c.name);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true, c.name);
  }
}

test('the CronJob: every 15 minutes, one run at a time, a chainprobe command line that reads the ConfigMap, writes to the claim and pushes', () => {
  const cron = named('CronJob', 'chainprobe-staging')!;
  assert.equal(cron.spec.schedule, '*/15 * * * *', 'the interval examples/prometheus/alerts.yml is written for');
  assert.equal(cron.spec.concurrencyPolicy, 'Forbid');
  const pod = podOf(cron);
  judgeSecurity(pod);
  const c = pod.containers[0];
  assert.equal(c.command, undefined, "the image's ENTRYPOINT: chainprobe");
  const { values } = envOf(c);
  const args = (c.args as string[]).map((a) => expand(a, values));
  const parsed = parseCommand(START, args);
  assert.ok(!('show' in parsed));
  const v = parsed.values;
  const target = mountOf(pod, c, 'configMap');
  const reports = mountOf(pod, c, 'persistentVolumeClaim');
  assert.equal(v.target[0], `${target.path}/target.json`);
  for (const path of [v.out, v.history, v.metrics])
    assert.ok(path!.startsWith(`${reports.path}/`), `${path} on the claim`);
  assert.equal(gatewayProblem(v.pushgateway!), undefined);
  assert.equal(named('PersistentVolumeClaim', reports.name)?.kind, 'PersistentVolumeClaim', 'the claim is in the file');
  const t = judgeTarget(named('ConfigMap', target.name)!, 'target.json', c);
  assert.equal(t.name, 'staging');
  // The gateway's credentials, when it wants them, from a Secret too (optional: a gateway without auth).
  const { secrets } = envOf(c);
  assert.deepEqual(
    Object.keys(secrets).filter((n) => n.startsWith('CHAINPROBE_PUSHGATEWAY_')),
    ['CHAINPROBE_PUSHGATEWAY_USER', 'CHAINPROBE_PUSHGATEWAY_PASSWORD'],
  );
});

/** Runs a manifest's shell line (`sh -c`) with `chainprobe` a stub that prints its arguments, one per line. */
function runShell(command: string[], args: string[], env: Record<string, string>): string[] {
  const bin = mkdtempSync(join(tmpdir(), 'chainprobe-stub-'));
  try {
    writeFileSync(join(bin, 'chainprobe'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    chmodSync(join(bin, 'chainprobe'), 0o755);
    const r = spawnSync(command[0]!, [...command.slice(1), ...args], {
      env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
      encoding: 'utf8',
      timeout: SLOW_MACHINE_MS,
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter((l) => l !== '');
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

test(
  'the Indexed Job: one pod per part, each running chainprobe --shard i/n into its own folder; the merge Job waits for them and merges that folder',
  { timeout: HANG_MS },
  async () => {
    const job = named('Job', 'chainprobe-fleet')!;
    const merge = named('Job', 'chainprobe-fleet-merge')!;
    assert.equal(job.spec.completionMode, 'Indexed');
    const pod = podOf(job);
    judgeSecurity(pod);
    judgeSecurity(podOf(merge));
    const c = pod.containers[0];
    const { values } = envOf(c);
    const shards = Number(values.SHARDS);
    assert.equal(job.spec.completions, shards);
    assert.equal(job.spec.parallelism, shards);
    const target = mountOf(pod, c, 'configMap');
    const fleet = judgeTarget(named('ConfigMap', target.name)!, 'fleet.json', c);
    assert.equal(shardPieces([fleet]).length, shards, 'as many parts as the fleet has pieces: no pod idles');

    // Each index's command line, as its pod's shell makes it.
    const outs: string[] = [];
    for (let index = 0; index < shards; index++) {
      const argv = runShell(c.command, c.args, { ...values, JOB_COMPLETION_INDEX: String(index) });
      const parsed = parseCommand(START, argv);
      assert.ok(!('show' in parsed));
      assert.equal(parsed.values.shard, `${index + 1}/${shards}`);
      assert.equal(parsed.values.target[0], `${target.path}/fleet.json`);
      outs.push(parsed.values.out!);
    }
    assert.equal(new Set(outs).size, shards, 'each part its own folder');
    const parts = outs.map((o) => o.replace(/\/[^/]+$/, ''));
    assert.equal(new Set(parts).size, 1, 'all under one folder');
    const reports = mountOf(pod, c, 'persistentVolumeClaim');
    assert.ok(parts[0]!.startsWith(`${reports.path}/`));
    assert.deepEqual(named('PersistentVolumeClaim', reports.name)?.spec.accessModes, ['ReadWriteMany']);

    // The merge: the same claim, the same RUN_ID, merging that folder.
    const mc = podOf(merge).containers[0];
    const mv = envOf(mc).values;
    assert.equal(mv.RUN_ID, values.RUN_ID);
    const margs = (mc.args as string[]).map((a) => expand(a, mv));
    assert.equal(margs[0], 'merge', "the image's ENTRYPOINT is chainprobe: `merge` is its command");
    const parsed = parseCommand(MERGE, margs.slice(1));
    assert.ok(!('show' in parsed));
    assert.deepEqual(parsed.positionals, [parts[0]]);
    assert.ok(!parsed.values.out!.startsWith(`${parts[0]}/`), 'the merged report outside the folder it merges');
    assert.equal(gatewayProblem(parsed.values.pushgateway!), undefined);
    assert.equal(mountOf(podOf(merge), mc, 'persistentVolumeClaim').name, reports.name);

    // Its init container waits until every part has written results.json, then lets the merge start.
    const wait = podOf(merge).initContainers[0];
    const wv = envOf(wait).values;
    assert.equal(Number(wv.SHARDS), shards);
    assert.equal(wv.RUN_ID, values.RUN_ID);
    const root = mkdtempSync(join(tmpdir(), 'chainprobe-parts-'));
    try {
      const script = (wait.command as string[]).map((a) => a.replaceAll(`${reports.path}/`, `${root}/`));
      const partDir = (i: number) => join(root, outs[i]!.slice(reports.path.length + 1));
      for (let i = 0; i < shards - 1; i++) {
        mkdirSync(partDir(i), { recursive: true });
        writeFileSync(join(partDir(i), 'results.json'), '{}');
      }
      const child = spawn(script[0]!, script.slice(1), { env: { PATH: '/usr/bin:/bin', ...wv }, stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r('waiting'), 1000))]);
      assert.equal(early, 'waiting', `with ${shards - 1} of ${shards} parts written it waits`);
      child.kill('SIGTERM');
      await exited;
      mkdirSync(partDir(shards - 1), { recursive: true });
      writeFileSync(join(partDir(shards - 1), 'results.json'), '{}');
      const done = spawnSync(script[0]!, script.slice(1), {
        env: { PATH: '/usr/bin:/bin', ...wv },
        timeout: SLOW_MACHINE_MS,
      });
      assert.equal(done.status, 0, 'with every part written it ends at once');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test('every pod runs the image the Dockerfile builds, by one name', () => {
  const images = all().flatMap(({ doc }) => {
    if (doc.kind !== 'CronJob' && doc.kind !== 'Job') return [];
    const pod = podOf(doc);
    return [...(pod.initContainers ?? []), ...pod.containers].map((c: Doc) => c.image as string);
  });
  assert.equal(new Set(images).size, 1, images.join(', '));
  assert.match(images[0]!, /\/chainprobe:[\w.-]+$/);
});

/** The Dockerfile's instructions: continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; arg: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), arg: rest.join(' ') };
    });
}

test('the Dockerfile: a Node LTS slim image, the packed tarball installed, chainprobe run as a non-root user', () => {
  const ins = instructions(readFileSync(join(DIR, 'Dockerfile'), 'utf8'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    engines: { node: string };
  };
  const from = ins.filter((i) => i.op === 'FROM');
  assert.equal(from.length, 1, 'one stage');
  const m = /^node:(\d+)(?:\.\d+)*-(?:[a-z]+-)?slim$/.exec(from[0]!.arg);
  assert.ok(m, `${from[0]!.arg}: an official node image, slim`);
  const major = Number(m[1]);
  assert.equal(major % 2, 0, 'an even major: an LTS line');
  const supported = [...pkg.engines.node.matchAll(/\^(\d+)\./g)].map((x) => Number(x[1]));
  assert.ok(supported.includes(major), `node ${major} is one package.json's engines allows (${pkg.engines.node})`);

  // The tarball `npm pack` writes (<name>-<version>.tgz), copied and installed globally, not the sources.
  const copy = ins.filter((i) => i.op === 'COPY' || i.op === 'ADD');
  assert.deepEqual(
    copy.map((i) => i.op),
    ['COPY'],
  );
  const [source] = copy[0]!.arg.split(/\s+/);
  assert.equal(source, `${pkg.name}-*.tgz`);
  const run = ins.filter((i) => i.op === 'RUN').map((i) => i.arg);
  const install = run.findIndex((r) => /\bnpm install --global\b.*\/tmp\/chainprobe-\*\.tgz/.test(r));
  assert.ok(install >= 0, 'npm install --global of the tarball');
  assert.ok(
    !run.some((r) => /\bnpm (ci|run|install)(?!\s+--global)\b/.test(r)),
    'nothing built from sources in the image',
  );

  // Non-root from after the install on, numeric so runAsNonRoot can check it.
  const user = ins.findIndex((i) => i.op === 'USER');
  assert.ok(
    user > ins.findIndex((i) => i.op === 'RUN' && /npm install --global/.test(i.arg)),
    'USER after the install',
  );
  const [uid, gid] = ins[user]!.arg.split(':');
  assert.match(uid!, /^\d+$/);
  assert.notEqual(Number(uid), 0);
  assert.notEqual(Number(gid ?? 1), 0);
  assert.equal(ins.filter((i) => i.op === 'USER').length, 1, 'never back to root');
  const manifestsUser = new Set(
    all()
      .filter(({ doc }) => doc.kind === 'CronJob' || doc.kind === 'Job')
      .map(({ doc }) => podOf(doc).securityContext.runAsUser),
  );
  assert.deepEqual([...manifestsUser], [Number(uid)], "the manifests run as the image's user");

  const entry = ins.find((i) => i.op === 'ENTRYPOINT');
  assert.deepEqual(JSON.parse(entry!.arg), ['chainprobe'], 'exec form: chainprobe is PID 1 and gets the signals');
});
