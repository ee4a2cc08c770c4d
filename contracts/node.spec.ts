// Dedicated node endpoints (NODE-01..07) and node access tokens (NAUTH-01..07), one test per rule,
// titled by the catalogue. The work is per node path (contracts/node-work.ts): each REST path with
// every token form NODE_TOKEN_USAGES lists (node-rest.ts), the WebSocket upgrade with a ping/pong
// round trip and gRPC reflection (node-streams.ts), each followed by NAUTH-07's no token and wrong
// tokens (near misses, empty, the auth parameter twice) in every form that path took the right token
// in (node-refusals.ts). A worker runs every path's work at once, started by its first node test,
// unless the contract stage sends it itself (contracts/stage-work.ts: the rate-limited node's always,
// every path's in a run of the contract checks alone); each rule's test takes the checks of its rule
// from the paths that have them. The horizon node is rate-limited: it gets a handful of accepted
// requests, and only wrong tokens a correct service refuses, which spend none of its quota; the
// tests that read it come last (in a full run its requests wait for the probes).
import { RULES } from '../src/rules/catalogue.js';
import { Spec } from './fixtures.js';
import { SharedWork } from './shared-work.js';
import { NODE_SECTION, type NodeName } from './node-rest.js';

const spec = new Spec('node');

const works = new SharedWork();

works.addFamily('node');

// ---- The tests, one per rule.

works.declareTests(
  spec,
  RULES.filter((r) => r.section === 'NODE' || r.section === 'NAUTH'),
);

spec.coverRest(
  RULES.filter((r) => r.section === 'NODE' || r.section === 'NAUTH').map((r) => r.id),
  (rule, t) => {
    const need = (name: NodeName) =>
      t.nodes[name] ? 'not testable with this target' : `target has no ${NODE_SECTION[name]} section`;
    if (['NAUTH-01', 'NAUTH-02', 'NAUTH-03', 'NODE-01'].includes(rule)) return need('blockRest');
    if (rule === 'NODE-07') return need('horizon');
    if (rule === 'NAUTH-04' || rule === 'NAUTH-07') return 'target has no nodes section (blockRest, chainB or horizon)';
    return need('chainB');
  },
);
