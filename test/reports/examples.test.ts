import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

// No YAML parser in the project: these read the example as text, step by step.
const yml = readFileSync(new URL('../../examples/github-actions.yml', import.meta.url), 'utf8');
const steps = yml.split(/\n(?=      - )/).slice(1);
const step = (needle: string) => {
  const s = steps.find((x) => x.includes(needle));
  assert.ok(s, `a step with ${needle}`);
  return s;
};

test('the GitHub Actions example installs, runs with secrets from the store, uploads and publishes always', () => {
  assert.doesNotMatch(yml, /\t/, 'YAML has no tabs');
  step('actions/setup-node@');
  assert.match(step('npm ci'), /run: npm ci/);
  const run = step('npm start');
  assert.match(run, /run: npm start -- --target targets\/staging\.json\n/);
  const secrets = [...run.matchAll(/^\s+([A-Z0-9_]+): \$\{\{ secrets\.([A-Z0-9_]+) \}\}$/gm)];
  assert.ok(secrets.length >= 3);
  for (const m of secrets) assert.equal(m[1], m[2], 'each variable is the secret of the same name');
  assert.doesNotMatch(run, /^\s+if:/m, 'the run step decides the job: no if, no continue-on-error');
  assert.doesNotMatch(yml, /continue-on-error/);

  const upload = step('actions/upload-artifact@');
  assert.match(upload, /if: \$\{\{ always\(\) \}\}/);
  assert.match(upload, /path: reports\/latest\//);
  const junit = step('reports/latest/junit.xml');
  assert.match(junit, /if: \$\{\{ always\(\)/);
  assert.match(junit, /reporter: java-junit/);
});

test('the example writes no secret to disk', () => {
  for (const line of yml.split('\n').filter((l) => l.includes('secrets.'))) {
    assert.match(line, /^\s+[A-Z0-9_]+: \$\{\{ secrets\.[A-Z0-9_]+ \}\}$/, `secrets only as step env: ${line.trim()}`);
  }
  assert.doesNotMatch(yml, /(>|>>|tee)\s*\S*(\.env|secret|token|key)/i);
});

test('the example runs chainprobe on every Node that package.json supports, and staging once on the newest', () => {
  const engines = (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
  ).engines.node;
  const supported = [...engines.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1]));
  assert.ok(supported.length >= 2, engines);
  const matrix = /^\s+node: \[([\d, ]+)\]$/m.exec(yml);
  assert.ok(matrix, 'a matrix over Node versions');
  assert.deepEqual(matrix[1]!.split(',').map(Number), supported);
  assert.match(step('${{ matrix.node }}'), /node-version: \$\{\{ matrix\.node \}\}/);
  const staging = steps
    .slice(0, steps.indexOf(step('npm start -- --target')))
    .filter((s) => s.includes('actions/setup-node@'));
  assert.equal(staging.length, 1);
  assert.match(staging[0]!, new RegExp(`node-version: ${Math.max(...supported)}\n`));
});
