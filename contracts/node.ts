// The dedicated nodes (NODE-01..07, NAUTH-01..07) as a family contract. The plan sends, per node
// path and all paths at once: the right token in each form the node table lists, then NAUTH-07's
// refusals in the forms that took it (REST: node-rest.ts; chain B's WebSocket and gRPC:
// node-streams.ts). The rate-limited horizon node waits for the probes (Senders.rateLimitedNode),
// is answered from their answers where they sent the same request (probe-answers.ts), is paced
// under its per-second cap, and gets only wrong tokens a correct service refuses. The judges, one
// per rule, are pure functions over what the plan got (node-rest-judge.ts, node-streams-judge.ts).
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { Judgement } from './checks.js';
import { hostOf, type FamilyContract } from './plan.js';
import { probeAnswered } from './probe-answers.js';
import {
  NODE_SECTION,
  RATE_LIMITED,
  REST_PATHS,
  restPathsOf,
  restRulesOf,
  sendRestPath,
  type NodeName,
  type RestPath,
  type RestPathAnswers,
} from './node-rest.js';
import { judgePathRule, judgeRestRefusals, judgeTokenForms } from './node-rest-judge.js';
import { sendGrpc, sendWebSocket, type GrpcAnswers, type WebSocketAnswers } from './node-streams.js';
import {
  judgeGrpcReflection,
  judgeGrpcRefusals,
  judgeGrpcToken,
  judgeWsPing,
  judgeWsRefusals,
  judgeWsToken,
} from './node-streams-judge.js';

/** What the node plan got: each REST path's answers (table order), chain B's WebSocket and gRPC. */
export interface NodeAnswers {
  rest: RestPathAnswers[];
  websocket?: WebSocketAnswers;
  grpc?: GrpcAnswers;
}

const WS_RULES = ['NAUTH-05', 'NODE-02', 'NAUTH-07'];
const GRPC_RULES = ['NAUTH-06', 'NODE-06', 'NAUTH-07'];

/** The rules the target's nodes give checks to. */
function rulesOf(t: ResolvedTarget): Set<string> {
  return new Set([...restPathsOf(t).flatMap(restRulesOf), ...(t.nodes.chainB ? [...WS_RULES, ...GRPC_RULES] : [])]);
}

/** A REST path rule's checks on every path it is judged on, in table order. */
const onRest =
  (judge: (a: RestPathAnswers) => Judgement[]) =>
  (a: NodeAnswers): Judgement[] =>
    a.rest.flatMap(judge);

const tokenForms = (rule: string) => onRest((a) => judgeTokenForms(a, rule));
const pathRule = (rule: string) => onRest((a) => (REST_PATHS[a.path].rule === rule ? judgePathRule(a) : []));

export const NODE: FamilyContract<NodeAnswers> = {
  family: 'node',
  send: async ({ api, client, recorder, rateLimitedNode }, { target, seed, wants }) => {
    const restPath = async (path: RestPath) => {
      if (!RATE_LIMITED.has(REST_PATHS[path].node)) return sendRestPath(target, api, path, seed, wants);
      // After the probes in a full run; a call one of them already answered is not sent again.
      const probes = await rateLimitedNode();
      const horizon = target.nodes.horizon;
      const limited = client(probes.length && horizon ? { answered: probeAnswered(probes, horizon) } : {});
      return sendRestPath(target, limited, path, seed, wants);
    };
    const chainB = target.nodes.chainB !== undefined;
    const [rest, websocket, grpc] = await Promise.all([
      Promise.all(
        restPathsOf(target)
          .filter((p) => wants(...restRulesOf(p)))
          .map(restPath),
      ),
      chainB && wants(...WS_RULES) ? sendWebSocket(target, api, recorder, seed, wants) : undefined,
      chainB && wants(...GRPC_RULES) ? sendGrpc(target, api, recorder, seed, wants) : undefined,
    ]);
    return { rest, websocket, grpc };
  },
  judges: {
    'NAUTH-01': tokenForms('NAUTH-01'),
    'NAUTH-02': tokenForms('NAUTH-02'),
    'NAUTH-03': tokenForms('NAUTH-03'),
    'NAUTH-04': tokenForms('NAUTH-04'),
    'NAUTH-05': (a) => (a.websocket ? judgeWsToken(a.websocket) : []),
    'NAUTH-06': (a) => (a.grpc ? judgeGrpcToken(a.grpc) : []),
    'NAUTH-07': (a) => [
      ...a.rest.flatMap(judgeRestRefusals),
      ...(a.websocket ? judgeWsRefusals(a.websocket) : []),
      ...(a.grpc ? judgeGrpcRefusals(a.grpc) : []),
    ],
    'NODE-01': pathRule('NODE-01'),
    'NODE-02': (a) => (a.websocket ? judgeWsPing(a.websocket) : []),
    'NODE-03': pathRule('NODE-03'),
    'NODE-04': pathRule('NODE-04'),
    'NODE-05': pathRule('NODE-05'),
    'NODE-06': (a) => (a.grpc ? judgeGrpcReflection(a.grpc) : []),
    'NODE-07': pathRule('NODE-07'),
  },
  untestable: (rule, t) => {
    if (rulesOf(t).has(rule)) return undefined;
    const need = (name: NodeName) =>
      t.nodes[name] ? 'not testable with this target' : `target has no ${NODE_SECTION[name]} section`;
    if (['NAUTH-01', 'NAUTH-02', 'NAUTH-03', 'NODE-01'].includes(rule)) return need('blockRest');
    if (rule === 'NODE-07') return need('horizon');
    if (rule === 'NAUTH-04' || rule === 'NAUTH-07') return 'target has no nodes section (blockRest, chainB or horizon)';
    return need('chainB');
  },
  hosts: (t) => {
    const chainB = t.nodes.chainB;
    return [
      ...new Set([
        ...restPathsOf(t).map((p) => hostOf(t.nodes[REST_PATHS[p].node]!.endpoint)),
        ...(chainB ? [hostOf(chainB.websocketUrl), chainB.grpcAddress] : []),
      ]),
    ];
  },
};
