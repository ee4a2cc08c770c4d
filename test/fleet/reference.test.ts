// `npm run reference -- --horizon-nodes N` (and --block-rest-nodes, --chain-b-nodes): N nodes of
// the kind, each its own server with its own token, listed as an array of named nodes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { resolveTarget } from '../../src/target-file/load.js';
import { nodesOf } from '../../src/target-file/types.js';
import { parseReferenceArgs } from '../../cli/reference.js';
import { ROOT } from '../safety/support/cli.js';
import { HANG_MS } from '../support/backstops.js';
import { commandArgs } from '../support/command.js';

test(
  '--horizon-nodes 3 --block-rest-nodes 2: a target file with arrays, distinct tokens, each node its own bucket',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-fleet-ref-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'fleet.json');
    const child = spawn(
      process.execPath,
      [...commandArgs('cli/reference.ts'), '--target-out', file, '--horizon-nodes', '3', '--block-rest-nodes', '2'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const first = await new Promise<string>((res, rej) => {
        createInterface({ input: child.stdout }).once('line', res);
        child.once('exit', (code) => rej(new Error(`reference exited ${code}`)));
      });
      assert.deepEqual(JSON.parse(first), { ready: true, target: file });
      const raw = JSON.parse(readFileSync(file, 'utf8'));
      // An editor resolves "$schema" relative to the file: it names the target schema from there.
      assert.equal(
        realpathSync(resolve(dirname(file), raw.$schema)),
        realpathSync(join(ROOT, 'schemas/target.schema.json')),
      );
      assert.ok(Array.isArray(raw.nodes.horizon) && raw.nodes.horizon.length === 3);
      assert.ok(Array.isArray(raw.nodes.blockRest) && raw.nodes.blockRest.length === 2);
      assert.ok(!Array.isArray(raw.nodes.chainB), 'a kind without a count stays one object');
      const t = resolveTarget(raw, {});
      const horizons = nodesOf(t, 'horizon');
      assert.deepEqual(
        horizons.map((h) => h.name),
        ['horizon-1', 'horizon-2', 'horizon-3'],
      );
      assert.equal(new Set(horizons.map((h) => h.token)).size, 3);
      assert.equal(new Set(horizons.map((h) => h.endpoint)).size, 3);
      for (const h of horizons) {
        const own = await fetch(`${h.endpoint}/fee_stats?auth=${encodeURIComponent(h.token)}`);
        assert.equal(own.status, 200, `${h.name} takes its own token`);
        const other = horizons.find((o) => o !== h)!;
        const wrong = await fetch(`${h.endpoint}/fee_stats?auth=${encodeURIComponent(other.token)}`);
        assert.ok(
          wrong.status === 401 || wrong.status === 403,
          `${h.name} refuses another node's token (${wrong.status})`,
        );
        await Promise.all([own.arrayBuffer(), wrong.arrayBuffer()]);
      }
    } finally {
      child.kill('SIGTERM');
    }
  },
);

test('fleet counts are checked like every other number', () => {
  assert.deepEqual(parseReferenceArgs(['--horizon-nodes', '4']).fleet, { horizon: 4 });
  assert.throws(
    () => parseReferenceArgs(['--chain-b-nodes', '0']),
    /--chain-b-nodes: expected a whole number from 1 to 64/,
  );
  assert.throws(
    () => parseReferenceArgs(['--horizon-nodes', '65']),
    /--horizon-nodes: expected a whole number from 1 to 64/,
  );
});
