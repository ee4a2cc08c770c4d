// examples/k6-operator/testruns.yaml against the real TestRun CRD of k6-operator
// (../shared/k6-operator/k6.io_testruns.yaml beside the repository; skipped with a line when it
// is absent): every TestRun has the types and required fields the API server checks, and no field
// the server would silently prune. The judging functions are tried on broken manifests first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { invalidFields, prunedFields, type SchemaNode } from '../support/structural-schema.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CRD_PATH = 'shared/k6-operator/k6.io_testruns.yaml';

/** Beside the repository; for a git worktree, beside its main checkout too. */
function crdFile(): string | undefined {
  const roots = [ROOT];
  const common = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (common.status === 0) roots.push(dirname(common.stdout.trim()));
  return roots.map((r) => join(r, '..', CRD_PATH)).find((f) => existsSync(f));
}

const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);

const SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['parallelism'],
      properties: {
        parallelism: { type: 'integer' },
        ports: { type: 'array', items: { 'x-kubernetes-int-or-string': true } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

test('the judges: a type error, a missing required field and a pruned field are each found; preserved fields are not', () => {
  const good = { apiVersion: 'k6.io/v1alpha1', kind: 'TestRun', metadata: { name: 'x' }, spec: { parallelism: 1 } };
  assert.deepEqual(invalidFields(SCHEMA, good), []);
  assert.deepEqual(prunedFields(SCHEMA, good), []);
  assert.deepEqual(invalidFields(SCHEMA, { spec: { parallelism: '1' } }), [
    { path: 'spec.parallelism', problem: 'expected integer, got "1"' },
  ]);
  assert.deepEqual(invalidFields(SCHEMA, { spec: {} }), [
    { path: 'spec', problem: 'required field "parallelism" missing' },
  ]);
  assert.deepEqual(invalidFields(SCHEMA, { spec: { parallelism: 1, ports: [80, 'http', true] } }), [
    { path: 'spec.ports[2]', problem: 'expected an integer or a string, got true' },
  ]);
  assert.deepEqual(
    prunedFields(SCHEMA, { spec: { parallelism: 1, paralelism: 2, labels: { a: 'b' }, extra: { anything: 1 } } }),
    ['spec.paralelism'],
  );
  // An object without properties keeps nothing below the root's own metadata.
  assert.deepEqual(prunedFields({ type: 'object', properties: { x: { type: 'object' } } }, { x: { y: 1 } }), ['x.y']);
});

test('examples/k6-operator/testruns.yaml: valid TestRuns, no field the API server would prune', (t) => {
  const file = crdFile();
  if (!file) {
    t.skip(`../${CRD_PATH} not found beside the repository: the TestRun example is not checked against the CRD`);
    return;
  }
  const [crd] = docs(readFileSync(file, 'utf8')) as {
    spec: {
      names: { kind: string };
      group: string;
      versions: { name: string; schema: { openAPIV3Schema: SchemaNode } }[];
    };
  }[];
  const runs = docs(readFileSync(join(ROOT, 'examples/k6-operator/testruns.yaml'), 'utf8')).filter(
    (d) => d.kind === crd!.spec.names.kind,
  );
  assert.ok(runs.length >= 1, 'the example holds TestRuns');
  for (const run of runs) {
    const name = (run.metadata as { name?: string } | undefined)?.name ?? '(unnamed)';
    const [group, version] = String(run.apiVersion).split('/');
    assert.equal(group, crd!.spec.group, `${name}: apiVersion's group`);
    const v = crd!.spec.versions.find((x) => x.name === version);
    assert.ok(v, `${name}: version ${version} is served by the CRD`);
    const schema = v!.schema.openAPIV3Schema;
    assert.deepEqual(invalidFields(schema, run), [], `${name}: fields the API server refuses`);
    assert.deepEqual(prunedFields(schema, run), [], `${name}: fields the API server would silently drop`);
  }
});
