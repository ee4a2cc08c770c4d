// Prism (@stoplight/prism-cli) as an independent judge of the exported OpenAPI document: its
// validation proxy stands between chainprobe and the embedded reference's base API while the
// contract families that use it run (universal, native, nft), and a second one in front of the
// horizon node for NODE-07 (fee_stats GET and HEAD with the rate-limit headers). On the conformant
// reference Prism finds no response that breaks the document; with a fault that breaks a field's
// type it finds one, and chainprobe fails the same rule. Requests chainprobe sends to break the
// rules on purpose (malformed ids, bodies that are not one JSON-RPC request, undocumented token
// forms) are request violations to Prism: counted and shown, never a fault of the service.
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

/** Runs the contract rules `only` with Prism in front of the base API (and, with `horizon`, of the horizon node). */
async function throughPrism(
  doc: string,
  opts: { only: string; faults?: string[]; horizon?: boolean },
): Promise<{ run: HarnessRun; prism: PrismProxy; horizon?: PrismProxy }> {
  let prism: PrismProxy | undefined;
  let horizon: PrismProxy | undefined;
  try {
    const run = await runAgainstReference({
      only: opts.only,
      reference: opts.faults ? { faults: new Set(opts.faults) } : {},
      edit: async (t: ResolvedTarget) => {
        prism = await startPrismProxy(doc, t.api!.baseUrl!);
        const node = t.nodes.horizon;
        if (opts.horizon && node) horizon = await startPrismProxy(doc, node.endpoint);
        return {
          ...t,
          api: { ...t.api!, baseUrl: prism.url },
          nodes: { ...t.nodes, ...(horizon && node && { horizon: { ...node, endpoint: horizon.url } }) },
        };
      },
    });
    return { run, prism: prism!, horizon };
  } finally {
    await prism?.stop();
    await horizon?.stop();
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
    const clean = await throughPrism(doc, { only: 'universal,native,nft,NODE-07', horizon: true });
    const cleanMs = performance.now() - t0;
    const violations = [...clean.prism.violations(), ...clean.horizon!.violations()];
    const responses = violations.filter((v) => v.side === 'response');
    const requests = violations.filter((v) => v.side === 'request');
    t.diagnostic(
      `clean run through Prism: ${Math.round(cleanMs)} ms, ` +
        `${clean.prism.received()} + ${clean.horizon!.received()} requests seen by Prism (base API + horizon node), ` +
        `${clean.run.checks.length} checks; response violations: ${responses.length}; request violations ` +
        `(chainprobe's deliberate bad requests): ${grouped(requests).join('; ') || 'none'}`,
    );
    assert.ok(clean.prism.received() >= 20, `Prism saw only ${clean.prism.received()} requests`);
    // fee_stats GET and HEAD, with their rate-limit headers, went through the horizon node's Prism.
    assert.ok(clean.horizon!.received() >= 2, `the horizon Prism saw ${clean.horizon!.received()} requests`);
    assert.deepEqual(grouped(responses), [], 'Prism reported responses of the conformant reference as violations');
    // The requests that break the document are the ones chainprobe sends to break it: malformed ids
    // (NFT-13) and JSON-RPC bodies that are not one Request object (RPC-07, RPC-09, batches). NODE-07
    // alone sends fee_stats with the documented auth query only (the other forms are NAUTH-04's).
    assert.deepEqual([...new Set(requests.map((v) => v.where))].sort(), [
      'request.body',
      'request.path.collection_id',
      'request.path.event_id',
    ]);
    // Where a validating proxy changes the answers, chainprobe judges the proxy's answer, as it must:
    // - Prism answers a body that is not JSON itself (`invalid_json`) instead of forwarding it (RPC-06);
    // - Prism fails on the answer to HEAD /fee_stats: it parses the body of every answer whose
    //   Content-Type is JSON, a HEAD answer has none (RFC 9110, 9.3.2), and it answers 500 (NODE-07).
    // Every other check passes as without Prism.
    assert.deepEqual(
      clean.run.checks
        .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
        .map((c) => `${c.rule} ${c.message}`)
        .sort(),
      ['NODE-07 HEAD fee_stats: answered 500', 'RPC-06 error code is "invalid_json", not -32700'],
    );
    assert.ok(clean.horizon!.lines().some((l) => /head \/fee_stats .*invalid json response body/i.test(l)));

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
