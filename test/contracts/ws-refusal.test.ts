// NAUTH-07 on the WebSocket still catches a node that takes a wrong token: with a fault that lets
// one in, the node upgrades and answers the request the probe sends at the upgrade, and the
// WebSocket refusal checks fail on that message (the conformant close after the upgrade is the
// variant ws-refuse-after-upgrade, in variants.test.ts). Only chain B is kept, for time; judged in
// the contract stage without Playwright (harness.ts judgeInStage).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeInStage } from './harness.js';

const CASES = [
  { fault: 'node-missing-token-accepted', id: 'node.websocket[no-token]' },
  { fault: 'node-token-case-insensitive', id: /^node\.websocket\[case/ },
] as const;

describe('a WebSocket that takes a wrong token fails NAUTH-07 on the message it sends', { concurrency: 2 }, () => {
  for (const { fault, id } of CASES) {
    it(fault, async () => {
      const checks = await judgeInStage({
        reference: { faults: new Set([fault]) },
        only: 'NAUTH-07',
        edit: (t) => ({ ...t, api: undefined, nodes: { chainB: t.nodes.chainB } }),
      });
      const ws = checks.filter((c) => (typeof id === 'string' ? c.id === id : id.test(c.id)));
      assert.ok(ws.length > 0, `no check ${id}: ${checks.map((c) => c.id).join(' ')}`);
      for (const c of ws) {
        assert.equal(c.verdict, 'fail', `${c.id}: ${c.message}`);
        assert.match(c.message, /upgraded and sent a text message/);
      }
    });
  }
});
