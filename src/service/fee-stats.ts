// The horizon node's fee_stats path, on its own (no imports): the k6 bundles build their requests
// from it as the contract checks and the Node probes do (src/service/endpoints.ts lists it too).
export const FEE_STATS_PATH = '/fee_stats';

/** The headers every fee_stats request carries besides the credential (the probes' and the contract checks' alike). */
export const FEE_STATS_HEADERS: Readonly<Record<string, string>> = { accept: 'application/json' };

/** The fee_stats URL of a horizon node, without a credential: the probes' requests and the contract checks' go to it. */
export function feeStatsUrlOf(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}${FEE_STATS_PATH}`;
}
