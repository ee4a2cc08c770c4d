// Prism (@stoplight/prism-cli) as an independent judge of the exported OpenAPI document: its
// validation proxy stands between chainprobe and the embedded reference's base API while the
// contract families that use it run (universal, native, nft). On the conformant reference Prism
// finds no response that breaks the document; with a fault that breaks a field's type it finds
// one, and chainprobe fails the same rule. Requests chainprobe sends to break the rules on purpose
// (no credentials, a body that is not JSON, a request without method) are request violations to
// Prism: counted and shown, never a fault of the service.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { documentText } from '../../src/export/documents.js';
import type { ResolvedTarget } from '../../src/target-file/types.js';
import { runAgainstReference, type HarnessRun } from '../contracts/harness.js';
import { startPrismProxy, type PrismProxy, type Violation } from './support/prism.js';

const FAULT = 'event-block-number-string';

async function throughPrism(
  doc: string,
  opts: { only: string; faults?: string[] },
): Promise<{ run: HarnessRun; prism: PrismProxy }> {
  let prism: PrismProxy | undefined;
  try {
    const run = await runAgainstReference({
      only: opts.only,
      reference: opts.faults ? { faults: new Set(opts.faults) } : {},
      edit: async (t: ResolvedTarget) => {
        prism = await startPrismProxy(doc, t.api!.baseUrl!);
        return { ...t, api: { ...t.api!, baseUrl: prism.url } };
      },
    });
    return { run, prism: prism! };
  } finally {
    await prism?.stop();
  }
}

const grouped = (vs: readonly Violation[]) => {
  const counts = new Map<string, number>();
  for (const v of vs) counts.set(`${v.where} ${v.message}`, (counts.get(`${v.where} ${v.message}`) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} x ${k}`);
};

test('Prism finds no response that breaks the exported document on the conformant reference, and finds the fault chainprobe finds', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-prism-'));
  try {
    const doc = join(dir, 'openapi.json');
    writeFileSync(doc, documentText('openapi'));

    const t0 = performance.now();
    const clean = await throughPrism(doc, { only: 'universal,native,nft' });
    const cleanMs = performance.now() - t0;
    const violations = clean.prism.violations();
    const responses = violations.filter((v) => v.side === 'response');
    const requests = violations.filter((v) => v.side === 'request');
    t.diagnostic(
      `clean run through Prism: ${Math.round(cleanMs)} ms, ${clean.prism.received()} requests seen by Prism, ` +
        `${clean.run.checks.length} checks; response violations: ${responses.length}; request violations ` +
        `(chainprobe's deliberate bad requests): ${grouped(requests).join('; ') || 'none'}`,
    );
    assert.ok(clean.prism.received() >= 20, `Prism saw only ${clean.prism.received()} requests`);
    assert.deepEqual(grouped(responses), [], 'Prism reported responses of the conformant reference as violations');
    // The requests that break the document are the ones chainprobe sends to break it: malformed ids
    // (NFT-13) and JSON-RPC bodies that are not one Request object (RPC-07, RPC-09, batches).
    assert.deepEqual([...new Set(requests.map((v) => v.where))].sort(), [
      'request.body',
      'request.path.collection_id',
      'request.path.event_id',
    ]);
    // Prism's proxy answers a body that is not JSON itself (`invalid_json`) instead of forwarding it,
    // so chainprobe judges Prism's answer there, not the reference's: RPC-06 is the one rule a
    // validating proxy in front changes. Every other check passes as without Prism.
    assert.deepEqual(
      clean.run.checks
        .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
        .map((c) => `${c.rule} ${c.message}`),
      ['RPC-06 error code is "invalid_json", not -32700'],
    );

    const t1 = performance.now();
    const broken = await throughPrism(doc, { only: 'NFT-01', faults: [FAULT] });
    const found = broken.prism.violations().filter((v) => v.side === 'response');
    t.diagnostic(
      `fault ${FAULT}: ${Math.round(performance.now() - t1)} ms; Prism: ${grouped(found).join('; ') || 'nothing'}`,
    );
    assert.ok(
      found.some((v) => /block_number/.test(v.line) && /integer/.test(v.line)),
      `Prism did not report the string block_number:\n${broken.prism.lines().slice(-30).join('\n')}`,
    );
    assert.ok(
      broken.run.checks.some((c) => c.rule === 'NFT-01' && c.verdict === 'fail'),
      'chainprobe did not fail NFT-01 with the fault on',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
