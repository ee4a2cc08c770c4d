// Chain B's WebSocket and gRPC judges: pure functions from what node-streams.ts's calls got to
// verdicts. NAUTH-05 and NODE-02 on the upgrade with the token (completed, then a pong), NAUTH-06
// and NODE-06 on reflection (the token taken, a service besides reflection listed; when reflection
// is not served, NAUTH-06 from whatever call shows the token), NAUTH-07 on the forms not shown and
// the refusals.
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import type { WebSocketProbeResult } from '../src/clients/websocket.js';
import type { Exchange } from '../src/record/recorder.js';
import { ev, verdict, type Judgement } from './checks.js';
import { judgeOpenForms, judgeRefusals, lostJudgement, type ReplyFacts } from './node-refusals.js';
import {
  GRPC_REFUSALS,
  type GrpcAnswers,
  type GrpcEnded,
  type TokenShown,
  type WebSocketAnswers,
} from './node-streams.js';
import { bodyShape } from '../src/body-shape.js';
import { WS_REFUSAL_EXPECTED, wsRefusal, wsTiming } from './ws-refusal.js';

/** The stable part of a probe, for baselines (times go beside it: wsTiming). */
function wsObservation(r: WebSocketProbeResult): Record<string, unknown> {
  return {
    status: r.status ?? 'none',
    upgraded: r.upgraded,
    pong: r.pongMs !== undefined,
    replyShape: r.reply === undefined ? 'none' : bodyShape(r.reply),
    firstMessage: r.firstMessage ? (r.firstMessage.binary ? 'binary' : 'text') : 'none',
    closedByServer: r.closedByServer ?? 'no',
  };
}

const WS_ID = 'node.websocket[x-auth-token]';
const GRPC_ID = 'node.grpc[x-auth-token]';

const error = (rule: string, id: string, cause: string, evidence: Judgement['evidence']): Judgement => ({
  rule,
  id,
  verdict: 'error',
  message: cause,
  evidence,
});

/** NAUTH-05: the upgrade with X-Auth-Token completes. */
export function judgeWsToken(a: WebSocketAnswers): Judgement[] {
  if ('lost' in a.upgrade) return [lostJudgement('NAUTH-05', WS_ID, a.upgrade.lost)];
  const r = a.upgrade.reply;
  const authProbe: AuthProbe = {
    row: a.row.row,
    form: 'ws-x-auth-token',
    probe: 'right',
    documented: true,
    data: r.upgraded,
  };
  return [
    verdict(
      r.upgraded,
      'NAUTH-05',
      WS_ID,
      `upgrade with X-Auth-Token completed (${r.status})`,
      `upgrade with X-Auth-Token refused (${r.status})`,
      ev(r.exchange, { expected: 101, actual: r.status, observation: wsObservation(r), [AUTH_PROBE_FIELD]: authProbe }),
    ),
  ];
}

/** NODE-02: a ping on the completed upgrade gets its pong. */
export function judgeWsPing(a: WebSocketAnswers): Judgement[] {
  if ('lost' in a.upgrade) return [lostJudgement('NODE-02', WS_ID, a.upgrade.lost)];
  const r = a.upgrade.reply;
  if (!r.upgraded)
    return [error('NODE-02', WS_ID, 'the upgrade was refused, so no ping/pong could be tried', ev(r.exchange))];
  return [
    verdict(
      r.pongMs !== undefined,
      'NODE-02',
      WS_ID,
      `ping/pong round trip in ${r.pongMs} ms`,
      `no pong to a ping within ${a.timeoutMs} ms`,
      ev(r.exchange, { expected: 'pong', actual: r.error ?? 'no pong', observation: wsObservation(r) }),
    ),
  ];
}

/** What NAUTH-07 reads of an upgrade: a text or binary message is data (ws-refusal.ts). */
export function wsFacts(r: WebSocketProbeResult): ReplyFacts {
  const { data, what } = wsRefusal(r);
  const timing = wsTiming(r);
  return {
    data,
    what,
    evidence: ev(r.exchange, {
      expected: WS_REFUSAL_EXPECTED,
      observation: wsObservation(r),
      ...(timing && { timing }),
    }),
  };
}

/** NAUTH-07 on the WebSocket: the forms not shown, then the refusals. */
export const judgeWsRefusals = (a: WebSocketAnswers): Judgement[] => [
  ...judgeOpenForms(a.row, a.open ?? [], wsFacts),
  ...judgeRefusals(a.row, a.refusals ?? [], wsFacts),
];

const refused = (codeName: string) => GRPC_REFUSALS.includes(codeName);

/** NODE-06: reflection lists a service besides itself. */
export function judgeGrpcReflection(a: GrpcAnswers): Judgement[] {
  if ('lost' in a.listed) return [lostJudgement('NODE-06', GRPC_ID, a.listed.lost)];
  const l = a.listed.reply;
  const exchange = l.exchanges.at(-1);
  if (l.ok) {
    const { services, own } = l.value;
    return [
      verdict(
        own.length > 0,
        'NODE-06',
        GRPC_ID,
        `reflection lists ${own.join(', ')}`,
        `reflection lists only ${services.join(', ') || 'nothing'}`,
        ev(exchange, {
          expected: 'a service besides reflection',
          actual: services,
          observation: { services: [...services].sort() },
        }),
      ),
    ];
  }
  const unimplemented = l.codeName === 'UNIMPLEMENTED';
  // An answer from the reflection service itself (in the stream) or UNIMPLEMENTED (no such service): no list.
  if (unimplemented || l.inBand)
    return [
      {
        rule: 'NODE-06',
        id: GRPC_ID,
        verdict: 'fail',
        message: `services not listed: ${l.message}`,
        evidence: ev(l.exchanges.slice(unimplemented ? -2 : -1), {
          expected: 'a list_services answer',
          actual: l.codeName,
        }),
      },
    ];
  return [error('NODE-06', GRPC_ID, `no service list: ${l.message}`, ev(exchange))];
}

/** NAUTH-06: the token as x-auth-token metadata is taken (read off another call when reflection is not served). */
export function judgeGrpcToken(a: GrpcAnswers): Judgement[] {
  if ('lost' in a.listed) return [lostJudgement('NAUTH-06', GRPC_ID, a.listed.lost)];
  const l = a.listed.reply;
  const exchange = l.exchanges.at(-1);
  if (l.ok) {
    const authProbe: AuthProbe = {
      row: a.row.row,
      form: 'grpc-metadata',
      probe: 'right',
      documented: true,
      data: true,
    };
    return [
      {
        rule: 'NAUTH-06',
        id: GRPC_ID,
        verdict: 'pass',
        message: `x-auth-token metadata accepted: ${l.value.services.length} service(s) listed`,
        evidence: ev(exchange, { [AUTH_PROBE_FIELD]: authProbe }),
      },
    ];
  }
  if (refused(l.codeName))
    return [
      {
        rule: 'NAUTH-06',
        id: GRPC_ID,
        verdict: 'fail',
        message: `x-auth-token metadata refused: ${l.message}`,
        evidence: ev(exchange, { expected: 'OK', actual: l.codeName }),
      },
    ];
  if (l.inBand)
    return [
      {
        rule: 'NAUTH-06',
        id: GRPC_ID,
        verdict: 'pass',
        message: `x-auth-token metadata accepted: the reflection service itself answered (${l.message})`,
        evidence: ev(exchange),
      },
    ];
  if (l.codeName === 'UNIMPLEMENTED' && a.tokenShown) {
    if ('lost' in a.tokenShown) return [lostJudgement('NAUTH-06', GRPC_ID, a.tokenShown.lost)];
    return [judgeTokenShown(l.exchanges, a.tokenShown.reply)];
  }
  return [error('NAUTH-06', GRPC_ID, l.message, ev(exchange))];
}

/** NAUTH-06 from the calls after reflection ended UNIMPLEMENTED with the token (`listed`: its exchanges). */
function judgeTokenShown(listed: readonly Exchange[], t: TokenShown): Judgement {
  const healthId = 'node.grpc.health[x-auth-token]';
  const { bare, health, healthWithout: without } = t;
  /** The last calls' exchanges, as they were recorded one after another. */
  const last = (n: number, ...calls: (GrpcEnded<unknown> | undefined)[]) =>
    [...listed, ...calls.flatMap((c) => c?.exchanges ?? [])].slice(-n);
  if (!bare.ok && refused(bare.codeName))
    return {
      rule: 'NAUTH-06',
      id: GRPC_ID,
      verdict: 'pass',
      message: `x-auth-token metadata accepted: reflection ends UNIMPLEMENTED with it and ${bare.codeName} without it`,
      evidence: ev(last(2, bare)),
    };
  if (!health) return error('NAUTH-06', GRPC_ID, 'no health check was made', ev(last(3, bare)));
  const healthExchange = health.exchanges.at(-1);
  if (!health.ok) {
    if (refused(health.codeName))
      return {
        rule: 'NAUTH-06',
        id: healthId,
        verdict: 'fail',
        message: `x-auth-token metadata refused by the health check: ${health.message}`,
        evidence: ev(healthExchange, { expected: 'OK', actual: health.codeName }),
      };
    return error(
      'NAUTH-06',
      GRPC_ID,
      `no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, the health check ${health.codeName}`,
      ev(last(3, bare, health)),
    );
  }
  if (without && !without.ok && refused(without.codeName))
    return {
      rule: 'NAUTH-06',
      id: healthId,
      verdict: 'pass',
      message: `x-auth-token metadata accepted: the health check answers ${health.value} with it and ${without.codeName} without it`,
      evidence: ev([healthExchange, without.exchanges.at(-1)]),
    };
  const seen = !without ? 'was not asked' : without.ok ? `answers ${without.value}` : `ends ${without.codeName}`;
  return error(
    'NAUTH-06',
    GRPC_ID,
    'no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, ' +
      `and the health check ${seen} without a token too`,
    ev(last(3, bare, health, without)),
  );
}

/** What NAUTH-07 reads of a reflection call: status OK is data. */
export function grpcFacts(r: GrpcEnded<string[]>): ReplyFacts {
  const exchange = r.exchanges.at(-1);
  if (r.ok)
    return {
      data: true,
      what: `status OK, ${r.value.length} service(s) listed`,
      evidence: ev(exchange, { expected: 'a status other than OK', actual: 'OK' }),
    };
  return { data: false, what: r.codeName, evidence: ev(exchange, { observation: { status: r.codeName } }) };
}

/** NAUTH-07 on gRPC: the forms not shown, then the refusals. */
export const judgeGrpcRefusals = (a: GrpcAnswers): Judgement[] => [
  ...judgeOpenForms(a.row, a.open ?? [], grpcFacts),
  ...judgeRefusals(a.row, a.refusals ?? [], grpcFacts),
];
