// The universal REST works (UNI-01, UNI-02) the universal spec's rule tests judge: the block number
// of each configured network, read from a body whose shape the description does not show; successive
// calls and the native JSON-RPC head of the same network bound it within the target's tolerance. A
// network's calls go one after another (their order is what UNI-02 judges); the networks go at once.
import type { ApiClient, CallResult } from './api.js';
import { readBlockNumber, type FoundNumber } from './block-number.js';
import { ev } from './checks.js';
import { rpcBody } from './matrix.js';
import { bodyShape, parseJson } from './shape.js';
import { dataAccess, JSON_HEADERS, PATHS, type DataAccess } from './urls.js';

import { hostOf, WorkList, type FamilyWork, type WorkEnv } from './work.js';

/** Successive calls per network: enough that a replica serving old heads now and then shows. */
const SAMPLES = 6;

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

/** The universal REST works: one per configured network. */
export function universalWorks(env: WorkEnv): FamilyWork[] {
  const { target } = env;
  const access = dataAccess(target.api);
  const works = new WorkList(typeof access === 'string' ? [] : [hostOf(access.base)]);
  if (typeof access !== 'string') {
    for (const u of target.api?.universal ?? []) {
      const where = `${u.protocol}/${u.network}`;
      const native = target.api?.native;
      const nativeHere =
        native && native.protocol === u.protocol && [...native.networks, ...native.optionalNetworks].includes(u.network)
          ? native
          : undefined;
      works.add({
        title: `block number ${where}`,
        rules: ['UNI-01', 'UNI-02'],
        timeoutMs: (SAMPLES + 1) * target.limits.timeoutMs,
        run: async ({ api, check }) => {
          const tolerance = native?.blockNumberTolerance ?? 2;
          const samples: { res: CallResult; found?: FoundNumber }[] = [];
          let nativeAt: { value?: number; res: CallResult } | undefined;
          await check.guard(['UNI-01', 'UNI-02'], `universal.block-number[${where}]`, async () => {
            for (let i = 0; i < SAMPLES; i++) {
              const res = await api.call({
                purpose: `universal.block-number[${where}]#${i + 1}`,
                method: 'GET',
                url: access.base + PATHS.blockNumber(u.protocol, u.network),
                auth: access.auth,
              });
              samples.push({ res, found: res.ok ? readBlockNumber(res.json) : undefined });
              // The native head is read between the first two samples, which bracket it in time.
              if (i === 0 && nativeHere)
                nativeAt = await nativeHead(api, access, u.protocol, u.network, nativeHere.blockNumberMethod);
            }
          });
          if (samples.length < SAMPLES) return;

          // UNI-01: every answer is 2xx with a non-negative integer block number.
          const first = samples[0]!;
          const bad = samples.find(
            (s) => !s.res.ok || !s.found || !Number.isSafeInteger(s.found.value) || s.found.value < 0,
          );
          const observation = {
            bodyShape: bodyShape(first.res.body),
            field: first.found?.path ?? 'none',
            encoding: first.found?.encoding ?? 'none',
          };
          const id1 = `universal.block-number[${where}]`;
          if (!bad) {
            check.pass(
              'UNI-01',
              id1,
              `${where}: block number ${first.found!.value} at ${first.found!.path} (${first.found!.encoding}), ${SAMPLES} answers alike`,
              ev(first.res.exchange, { observation }),
            );
          } else {
            const why = !bad.res.ok
              ? `answered ${bad.res.status}`
              : !bad.found
                ? 'no block number in the body'
                : `block number is ${bad.found.value}, not a non-negative integer`;
            check.fail(
              'UNI-01',
              id1,
              `${where}: ${why}`,
              ev(bad.res.exchange, {
                expected: '2xx with a non-negative integer block number',
                actual: bad.found?.value ?? bad.res.status,
                path: bad.found?.path,
                observation,
              }),
            );
          }

          // UNI-02: no step back beyond the tolerance, and agreement with the native head.
          const values = samples.map((s) => s.found?.value).filter((v): v is number => v !== undefined);
          if (values.length < 2) {
            check.error(
              'UNI-02',
              `universal.block-number.monotonic[${where}]`,
              'fewer than two block numbers could be read',
            );
            return;
          }
          let worst = { drop: 0, at: 0 };
          for (let i = 1; i < values.length; i++)
            if (values[i - 1]! - values[i]! > worst.drop) worst = { drop: values[i - 1]! - values[i]!, at: i };
          check.verdict(
            worst.drop <= tolerance,
            'UNI-02',
            `universal.block-number.monotonic[${where}]`,
            `${where}: ${values.length} successive block numbers never went back more than ${tolerance}`,
            `${where}: the block number went back by ${worst.drop} (from ${values[worst.at - 1]} to ${values[worst.at]}), tolerance ${tolerance}`,
            ev(samples[worst.at]?.res.exchange, { expected: `no step back over ${tolerance}`, actual: values }),
          );
          if (!nativeHere || !nativeAt) return;
          const idN = `universal.block-number.vs-native[${where}]`;
          if (nativeAt.value === undefined) {
            check.error(
              'UNI-02',
              idN,
              `the native block number of ${where} could not be read (${nativeAt.res.status})`,
              ev(nativeAt.res.exchange),
            );
            return;
          }
          const [a, b] = [values[0]!, values[1] ?? values[0]!];
          const lo = Math.min(a, b) - tolerance;
          const hi = Math.max(a, b) + tolerance;
          const away = Math.min(Math.abs(nativeAt.value - a), Math.abs(nativeAt.value - b));
          check.verdict(
            nativeAt.value >= lo && nativeAt.value <= hi,
            'UNI-02',
            idN,
            `${where}: native head ${nativeAt.value} within ${tolerance} of the universal block numbers ${a}..${b} read around it`,
            `${where}: universal block numbers ${a}..${b} are ${away} away from the native head ${nativeAt.value} (tolerance ${tolerance})`,
            ev([first.res.exchange, nativeAt.res.exchange, samples[1]?.res.exchange], {
              expected: `within ${tolerance} of ${nativeAt.value}`,
              actual: [a, b],
            }),
          );
        },
      });
    }
  }
  return works.list;
}
