// A target whose servers close idle keep-alive connections after 300 ms without a Keep-Alive hint
// (the reference's variant http-idle-close) is healthy: a whole contract run against it has no
// fail and no error. A request that left on a connection the server was closing is sent once more
// (src/http/client.ts, with its own tests in test/unit/http-resend.test.ts); how many were is
// printed, it depends on timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDLE_CLOSE_VARIANT } from '../../reference/http/kit.js';
import type { Exchange } from '../../src/record/recorder.js';
import { runAgainstReference } from './harness.js';

test('servers that close idle connections after 300 ms: no fail, no error in a whole contract run', async (t) => {
  const run = await runAgainstReference({ reference: { variants: new Set([IDLE_CLOSE_VARIANT]) } });
  const bad = run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
  assert.deepEqual(
    bad.map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`),
    [],
  );
  assert.ok(run.checks.filter((c) => c.verdict === 'pass').length > 100, 'the run passed too few checks');
  const resent = run.checks
    .flatMap((c) => (c.evidence?.exchanges as Exchange[] | undefined) ?? [])
    .filter((x) => x.resent);
  t.diagnostic(
    `${run.checks.length} checks in ${Math.round(run.wallMs)} ms; ${resent.length} exchanges in the evidence were resent`,
  );
});
