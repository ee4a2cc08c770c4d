// Universal REST (UNI-01, UNI-02) as a family contract: the block number of each configured
// network, read from a body whose shape the description does not show; successive calls and the
// native JSON-RPC head of the same network bound it within the target's tolerance. The endpoint is
// served on {base_url} and on {legacy_base_url}: both rules are judged on each base the target has
// with its key, each check naming its base (a legacy base serving a stale cache fails there). A
// network's calls go one round after another (their order is what UNI-02 judges); the bases of a
// round and the networks go at once. The native head (on the first base) is read once between the
// first two rounds, so that one head is bracketed by every base's first two samples.
import type { Exchange } from '../src/record/recorder.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient, CallResult } from './api.js';
import { readBlockNumber, type FoundNumber } from './block-number.js';
import { ev, lostOf, type Judgement, type Lost } from './checks.js';
import { rpcBody } from './matrix.js';
import { hostOf, type FamilyContract } from './plan.js';
import { bodyShape, parseJson } from '../src/body-shape.js';
import { dataAccess, dataBases, JSON_HEADERS, PATHS, type BaseAccess, type DataAccess } from './urls.js';

/** Successive calls per network: enough that a replica serving old heads now and then shows. */
const SAMPLES = 6;

/** The native JSON-RPC head of the network. */
async function nativeHead(
  api: ApiClient,
  a: DataAccess,
  protocol: string,
  network: string,
  method: string,
): Promise<{ value?: number; res: CallResult }> {
  const res = await api.call({
    purpose: `universal.native-head[${protocol}/${network}]`,
    method: 'POST',
    url: a.base + PATHS.native(protocol, network),
    headers: JSON_HEADERS,
    body: rpcBody(method),
    auth: a.auth,
  });
  const result = (parseJson(res.body) as { result?: unknown } | undefined)?.result;
  const value =
    typeof result === 'string' && /^0x[0-9a-f]{1,13}$/i.test(result) ? parseInt(result.slice(2), 16) : undefined;
  return { value, res };
}

/** One base's successive answers for one network. */
export interface BaseSamples {
  at: BaseAccess;
  /** The network, `chain-a/mainnet`. */
  where: string;
  /**
   * The base and network in check ids: `chain-a/mainnet` on {base_url} (ids older than the legacy
   * ones, which other pipelines read), `legacy chain-a/mainnet` on {legacy_base_url}.
   */
  tag: string;
  /** The network and base at the head of a message. */
  say: string;
  samples: { res: CallResult; found?: FoundNumber }[];
  /** The request that could not be made, which ended this base's sampling. */
  lost?: Lost;
}

/** What the plan got for one network: every base's samples and the one native head. */
export interface NetworkAnswers {
  where: string;
  tolerance: number;
  /** The native family serves this network: its head is compared. */
  nativeHere: boolean;
  nativeAt?: { value?: number; res: CallResult };
  nativeLost?: Lost;
  runs: BaseSamples[];
}

export type UniversalAnswers = NetworkAnswers[];

async function sendNetwork(
  api: ApiClient,
  target: ResolvedTarget,
  bases: readonly BaseAccess[],
  u: { protocol: string; network: string },
): Promise<NetworkAnswers> {
  const where = `${u.protocol}/${u.network}`;
  const native = target.api?.native;
  const nativeHere =
    native && native.protocol === u.protocol && [...native.networks, ...native.optionalNetworks].includes(u.network)
      ? native
      : undefined;
  const runs: BaseSamples[] = bases.map((at) => ({
    at,
    where,
    tag: at.kind === 'base' ? where : `${at.kind} ${where}`,
    say: `${where} on the ${at.name}`,
    samples: [],
  }));
  const answers: NetworkAnswers = {
    where,
    tolerance: native?.blockNumberTolerance ?? 2,
    nativeHere: !!nativeHere,
    runs,
  };
  // A base that could not be read ends its own sampling; the other bases go on.
  const sample = (r: BaseSamples, i: number) =>
    api
      .call({
        purpose: `universal.block-number[${r.tag}]#${i + 1}`,
        method: 'GET',
        url: r.at.base + PATHS.blockNumber(u.protocol, u.network),
        auth: r.at.auth,
      })
      .then(
        (res) => void r.samples.push({ res, found: res.ok ? readBlockNumber(res.json) : undefined }),
        (e: unknown) => void (r.lost = lostOf(e)),
      );
  for (let i = 0; i < SAMPLES; i++) {
    await Promise.all(runs.filter((r) => r.samples.length === i && !r.lost).map((r) => sample(r, i)));
    // The native head is read between the first two rounds, which bracket it in time (when a base answered).
    if (i === 0 && nativeHere && runs.some((r) => r.samples.length === 1))
      answers.nativeAt = await nativeHead(api, bases[0]!, u.protocol, u.network, nativeHere.blockNumberMethod).catch(
        (e: unknown) => {
          answers.nativeLost = lostOf(e);
          return undefined;
        },
      );
  }
  return answers;
}

const complete = (r: BaseSamples) => r.samples.length === SAMPLES;

/** A base that could not be read: an `error` of each rule, with the cause. */
const lostCheck = (rule: string, r: BaseSamples): Judgement[] =>
  r.lost
    ? [
        {
          rule,
          id: `universal.block-number[${r.tag}]`,
          verdict: 'error',
          message: r.lost.cause,
          evidence: ev(r.lost.exchanges),
        },
      ]
    : [];

/** UNI-01 on one base: every answer is 2xx with a non-negative integer block number. */
function judgeAnswers(r: BaseSamples): Judgement {
  const { samples, tag, say } = r;
  const first = samples[0]!;
  const bad = samples.find((s) => !s.res.ok || !s.found || !Number.isSafeInteger(s.found.value) || s.found.value < 0);
  const observation = {
    bodyShape: bodyShape(first.res.body),
    field: first.found?.path ?? 'none',
    encoding: first.found?.encoding ?? 'none',
  };
  const id = `universal.block-number[${tag}]`;
  if (!bad)
    return {
      rule: 'UNI-01',
      id,
      verdict: 'pass',
      message: `${say}: block number ${first.found!.value} at ${first.found!.path} (${first.found!.encoding}), ${SAMPLES} answers alike`,
      evidence: ev(first.res.exchange, { observation }),
    };
  const why = !bad.res.ok
    ? `answered ${bad.res.status}`
    : !bad.found
      ? 'no block number in the body'
      : `block number is ${bad.found.value}, not a non-negative integer`;
  return {
    rule: 'UNI-01',
    id,
    verdict: 'fail',
    message: `${say}: ${why}`,
    evidence: ev(bad.res.exchange, {
      expected: '2xx with a non-negative integer block number',
      actual: bad.found?.value ?? bad.res.status,
      path: bad.found?.path,
      observation,
    }),
  };
}

/** UNI-02 on one base: no step back beyond the tolerance, and agreement with the native head. */
function judgeHeads(r: BaseSamples, n: NetworkAnswers): Judgement[] {
  const { samples, tag, say } = r;
  const { tolerance, nativeAt } = n;
  const values = samples.map((s) => s.found?.value).filter((v): v is number => v !== undefined);
  const idM = `universal.block-number.monotonic[${tag}]`;
  if (values.length < 2)
    return [
      { rule: 'UNI-02', id: idM, verdict: 'error', message: `${say}: fewer than two block numbers could be read` },
    ];
  let worst = { drop: 0, at: 0 };
  for (let i = 1; i < values.length; i++)
    if (values[i - 1]! - values[i]! > worst.drop) worst = { drop: values[i - 1]! - values[i]!, at: i };
  const out: Judgement[] = [
    {
      rule: 'UNI-02',
      id: idM,
      verdict: worst.drop <= tolerance ? 'pass' : 'fail',
      message:
        worst.drop <= tolerance
          ? `${say}: ${values.length} successive block numbers never went back more than ${tolerance}`
          : `${say}: the block number went back by ${worst.drop} (from ${values[worst.at - 1]} to ${values[worst.at]}), tolerance ${tolerance}`,
      evidence: ev(samples[worst.at]?.res.exchange, { expected: `no step back over ${tolerance}`, actual: values }),
    },
  ];
  if (!n.nativeHere) return out;
  const idN = `universal.block-number.vs-native[${tag}]`;
  const unread = (why: string, exchanges: Exchange[]): Judgement[] => [
    ...out,
    {
      rule: 'UNI-02',
      id: idN,
      verdict: 'error',
      message: `the native block number of ${r.where} could not be read (${why})`,
      evidence: ev(exchanges),
    },
  ];
  if (n.nativeLost) return unread(n.nativeLost.cause, n.nativeLost.exchanges);
  if (!nativeAt) return out;
  if (nativeAt.value === undefined) return unread(String(nativeAt.res.status), [nativeAt.res.exchange]);
  const [a, b] = [values[0]!, values[1] ?? values[0]!];
  const within = nativeAt.value >= Math.min(a, b) - tolerance && nativeAt.value <= Math.max(a, b) + tolerance;
  const away = Math.min(Math.abs(nativeAt.value - a), Math.abs(nativeAt.value - b));
  out.push({
    rule: 'UNI-02',
    id: idN,
    verdict: within ? 'pass' : 'fail',
    message: within
      ? `${say}: native head ${nativeAt.value} within ${tolerance} of the universal block numbers ${a}..${b} read around it`
      : `${say}: universal block numbers ${a}..${b} are ${away} away from the native head ${nativeAt.value} (tolerance ${tolerance})`,
    evidence: ev([samples[0]!.res.exchange, nativeAt.res.exchange, samples[1]?.res.exchange], {
      expected: `within ${tolerance} of ${nativeAt.value}`,
      actual: [a, b],
    }),
  });
  return out;
}

export const UNIVERSAL: FamilyContract<UniversalAnswers> = {
  family: 'universal',
  send: ({ api }, { target }) => {
    const bases = dataBases(target.api);
    return Promise.all((target.api?.universal ?? []).map((u) => sendNetwork(api, target, bases, u)));
  },
  judges: {
    'UNI-01': (networks) =>
      networks.flatMap((n) =>
        n.runs.flatMap((r) => [...lostCheck('UNI-01', r), ...(complete(r) ? [judgeAnswers(r)] : [])]),
      ),
    'UNI-02': (networks) =>
      networks.flatMap((n) =>
        n.runs.flatMap((r) => [...lostCheck('UNI-02', r), ...(complete(r) ? judgeHeads(r, n) : [])]),
      ),
  },
  untestable: (_rule, t) => {
    const access = dataAccess(t.api);
    if (typeof access === 'string') return access;
    return !t.api?.universal.length ? 'target has no api.universal entry' : undefined;
  },
  hosts: (t) => [...new Set(dataBases(t.api).map((b) => hostOf(b.base)))],
};
