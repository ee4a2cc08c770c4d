// Every open-behaviour variant of the reference (choices where the description is silent, none
// breaks a rule), as data: start-up validates names against it and `--list-variants` prints it.
import { API_VARIANTS, type ApiVariant } from './api/variants.js';
import { CAP_503_VARIANT, QUERY_ONLY_VARIANT } from './nodes/horizon.js';
import { CAP_STRICT_SPACING_VARIANT } from './limiter/cap.js';
import { ACCOUNT_BUCKET_VARIANT } from './limiter/pipeline.js';
import { WS_CLOSE_AFTER_UPGRADE_VARIANT } from './nodes/websocket.js';
import { IDLE_CLOSE_VARIANT } from './http/kit.js';

export type VariantDef = ApiVariant;

export const VARIANTS: readonly VariantDef[] = [
  ...API_VARIANTS,
  {
    name: 'chainb-query-only',
    rule: 'NAUTH-04',
    description: 'chain B REST paths accept only the auth query (default: Bearer and X-Auth-Token too)',
  },
  {
    name: WS_CLOSE_AFTER_UPGRADE_VARIANT,
    rule: 'NAUTH-07',
    description:
      'the WebSocket endpoint checks the token after the upgrade: without a valid one it upgrades, answers pings, ' +
      'sends no message and closes with 1008 after 300 ms (default: the upgrade is refused with 401/403)',
  },
  {
    name: IDLE_CLOSE_VARIANT,
    rule: 'AUTH-08',
    description:
      'every HTTP server closes a keep-alive connection after 300 ms idle, without a Keep-Alive hint ' +
      '(default: node keeps it 5 s and says so)',
  },
  { name: CAP_503_VARIANT, rule: 'RL-13', description: 'the per-second cap answers 503 instead of 429' },
  {
    name: QUERY_ONLY_VARIANT,
    rule: 'NAUTH-04',
    description:
      'fee_stats accepts only the auth query (default: Bearer and X-Auth-Token too, all three drawing on one bucket, as RL-14 requires)',
  },
  {
    name: CAP_STRICT_SPACING_VARIANT,
    rule: 'RL-13',
    description:
      'the per-second cap spaces requests strictly like nginx limit_req without burst: one per 50 ms, a request sooner after the last forwarded one is refused',
  },
  {
    name: ACCOUNT_BUCKET_VARIANT,
    rule: 'RL-09',
    description:
      "every horizon node (--horizon-nodes N) draws on one GCRA bucket, the account's; each keeps its own token and per-second cap",
  },
];

export function isVariant(name: string): boolean {
  return VARIANTS.some((v) => v.name === name);
}
