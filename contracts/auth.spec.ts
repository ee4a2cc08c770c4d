// API-key authentication (AUTH-01..12): every endpoint of the target crossed with every key usage
// of the auth table, plus the refusals (no credentials, an unknown key in every accepted form).
import { AUTH_FORMS, type KeyUsage } from '../src/auth/forms.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ResolvedApi } from '../src/target/types.js';
import type { ApiClient, CallResult, Credential } from './api.js';
import { ev, type Checks } from './checks.js';
import { Spec } from './fixtures.js';
import {
  apiEndpoints,
  baseUrlOf,
  groupRules,
  keyOf,
  missingFor,
  NO_CREDENTIALS,
  UNKNOWN_KEYS,
  unknownKeyLike,
  usageGroups,
  usageRules,
  type ApiEndpoint,
  type Refusal,
} from './matrix.js';
import type { AssetRef, Samples } from './samples.js';
import { bodyShape, mediaType } from './shape.js';
import { suiteEnv } from './env.js';

const spec = new Spec('auth');
const target = suiteEnv().target;
const endpoints = apiEndpoints(target);
const groups = usageGroups();

const OPEN_CAUSE = 'an auth form the description leaves open';

/** Status, content type and body shape: the open part of every auth check. */
function answerOf(r: CallResult): Record<string, unknown> {
  return { status: r.status, contentType: mediaType(r.headers) ?? 'none', bodyShape: bodyShape(r.body) };
}

function formLabel(form: KeyUsage['form']): string {
  const f = AUTH_FORMS[form];
  return f.transport === 'query' ? `${f.name} query parameter` : f.id === 'bearer' ? 'Bearer' : `${f.name} header`;
}

async function assetFor(ep: ApiEndpoint, api: ApiClient, samples: Samples): Promise<AssetRef | undefined> {
  return ep.needsAsset ? samples.asset(api) : undefined;
}

function send(api: ApiClient, ep: ApiEndpoint, base: string, asset: AssetRef | undefined, purpose: string, auth?: Credential, cause?: string) {
  return api.call({ purpose, method: ep.method, url: base + ep.path(asset), headers: ep.headers, body: ep.body, auth, cause });
}

async function checkUsage(ep: ApiEndpoint, u: KeyUsage, api: ApiClient, check: Checks, samples: Samples, a: ResolvedApi): Promise<void> {
  const id = `auth.${ep.id}[${u.form}@${u.base}:${u.key}]`;
  const rules = usageRules(ep, u);
  const missing = missingFor(a, u.base, u.key);
  if (missing) {
    for (const r of rules) check.skip(r.rule, id, missing);
    return;
  }
  await check.guard(
    rules.map((r) => r.rule),
    id,
    async () => {
      const asset = await assetFor(ep, api, samples);
      const res = await send(api, ep, baseUrlOf(a, u.base)!, asset, id, { form: u.form, secret: keyOf(a, u.key)! }, u.expect === 'open' ? OPEN_CAUSE : undefined);
      const data = res.ok && ep.isData(res.json);
      const what = `${u.key === 'newKey' ? 'new' : 'legacy'} key as ${formLabel(u.form)} on ${u.base === 'base' ? 'the base URL' : 'the legacy base URL'} (${ep.id})`;
      const observation = { ...answerOf(res), accepted: data };
      for (const r of rules) {
        if (r.expect === 'open') {
          check.observe(r.rule, id, `${what}: ${data ? 'accepted' : 'refused'} with ${res.status}`, observation, res.exchange);
        } else if (r.honoured) {
          const firstPage = ep.id === 'nft.rarity' ? await samples.rarityFirstPage(api) : undefined;
          const problem = data ? ep.honoured?.(res.json, { asset, firstPage }) : `refused with ${res.status} when apiKey is joined with &`;
          check.verdict(!problem, r.rule, id, `${what}: apiKey joined with & accepted and the other parameters applied`, `${what}: ${problem}`, ev(res.exchange, { observation }));
        } else {
          check.verdict(
            data,
            r.rule,
            id,
            `${what}: accepted (${res.status} with data)`,
            `${what}: not accepted: ${res.status}${res.ok ? ' without the resource in the body' : ''}`,
            ev(res.exchange, { expected: '2xx with the resource', actual: res.status, observation }),
          );
        }
      }
    },
  );
}

async function checkRefusal(ep: ApiEndpoint, ref: Refusal, api: ApiClient, check: Checks, samples: Samples, a: ResolvedApi): Promise<void> {
  const rule = ref.key ? 'AUTH-08' : 'AUTH-07';
  const id = ref.key ? `auth.${ep.id}[unknown-${ref.key}:${ref.form}@${ref.base}]` : `auth.${ep.id}[no-credentials@${ref.base}]`;
  const missing = missingFor(a, ref.base);
  if (missing) return check.skip(rule, id, missing);
  await check.guard(rule, id, async () => {
    const asset = await assetFor(ep, api, samples);
    const auth = ref.form ? { form: ref.form, secret: unknownKeyLike(keyOf(a, ref.key!)) } : undefined;
    const res = await send(api, ep, baseUrlOf(a, ref.base)!, asset, id, auth, ref.key ? 'an unknown API key' : 'no credentials');
    const data = res.ok && ep.isData(res.json);
    const what = ref.key ? `unknown ${ref.key === 'newKey' ? 'new' : 'legacy'} key as ${formLabel(ref.form!)}` : 'no credentials';
    const where = `${ref.base === 'base' ? 'base URL' : 'legacy base URL'} (${ep.id})`;
    check.verdict(
      !data,
      rule,
      id,
      `${what} on the ${where}: no data (${res.status})`,
      `${what} on the ${where}: got data (${res.status} with the resource)`,
      ev(res.exchange, { expected: 'no 2xx with the resource', actual: res.status, observation: answerOf(res) }),
    );
  });
}

// One test per endpoint: every key usage, then the refusals. (Per-test overhead, not requests,
// dominates on a local target, so the matrix is not split further.)
for (const ep of endpoints) {
  const rules = [...new Set([...groups.flatMap((g) => groupRules(ep, g)), 'AUTH-07', 'AUTH-08'])];
  const requests = groups.reduce((n, g) => n + g.usages.length, 0) + NO_CREDENTIALS.length + UNKNOWN_KEYS.length;
  spec.contract(
    `${ep.id} with every key usage and refusal`,
    rules,
    async ({ api, check, samples }) => {
      const a = target.api!;
      for (const g of groups) for (const u of g.usages) if (check.wants(...usageRules(ep, u).map((r) => r.rule))) await checkUsage(ep, u, api, check, samples, a);
      if (check.wants('AUTH-07')) for (const ref of NO_CREDENTIALS) await checkRefusal(ep, ref, api, check, samples, a);
      if (check.wants('AUTH-08')) for (const ref of UNKNOWN_KEYS) await checkRefusal(ep, ref, api, check, samples, a);
    },
    { requests: requests + 2 },
  );
}

spec.coverRest(
  RULES.filter((r) => r.section === 'AUTH').map((r) => r.id),
  (rule, t) => {
    if (!t.api) return 'target has no api section';
    if (endpoints.length === 0) return 'target has no api endpoint to call (no api.universal, api.native or api.nft)';
    if (rule === 'AUTH-12') return 'target has no api.universal entry';
    if (rule === 'AUTH-06') return 'target has no NFT endpoint with a query string (api.nft with collectionId or eventIds)';
    return 'not testable with this target';
  },
);
