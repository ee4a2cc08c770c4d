// ajv validations per second on asset records: the records the reference serves (its views over
// the seeded dataset, no HTTP in between), each validated with the suite's own `validate`.
import { validate, type SchemaName } from '../../src/schemas/validate.js';
import { datasetOf } from '../../reference/nft/dataset.js';
import { assetView, listItemView } from '../../reference/nft/views.js';
import { figure, type Figure } from './figures.js';
import { repeat } from './stats.js';

export interface ValidationSettings {
  reps: number;
  /** How long each repetition validates. */
  ms: number;
}

function ratePerSecond(schema: SchemaName, records: readonly unknown[], ms: number): number {
  let n = 0;
  let invalid = 0;
  const t0 = performance.now();
  let t = t0;
  // Check the clock once per pass over the records, so the loop measures validation, not timers.
  while (t - t0 < ms) {
    for (const r of records) if (validate(schema, r).length) invalid++;
    n += records.length;
    t = performance.now();
  }
  if (invalid)
    throw new Error(`${invalid} of ${n} ${schema} records did not validate: the benchmark needs valid records`);
  return (n * 1000) / (t - t0);
}

export async function benchValidation(s: ValidationSettings): Promise<Figure[]> {
  const env = { faults: new Set<string>(), variants: new Set<string>() };
  const ds = datasetOf(42);
  const c = ds.main;
  const assets = Array.from({ length: c.size }, (_, i) => assetView(c, i, env));
  const items = Array.from({ length: c.size }, (_, i) => listItemView(ds, c, i, env));
  // Warm-up: compile (first validate loads schemas/) and let the JIT settle.
  ratePerSecond('asset', assets, 200);
  ratePerSecond('asset-list-item', items, 200);
  const group = 'Validation';
  const note = `validate() from src/schemas/validate.ts over the ${c.size} records of the reference's main collection, ${s.ms} ms per repetition`;
  const assetRates = await repeat(s.reps, async () => ratePerSecond('asset', assets, s.ms));
  const itemRates = await repeat(s.reps, async () => ratePerSecond('asset-list-item', items, s.ms));
  return [
    figure({
      id: 'validation.asset',
      readme: true,
      group,
      label: 'asset records (schema asset)',
      unit: 'validations/s',
      values: assetRates,
      note,
    }),
    figure({
      id: 'validation.asset-list-item',
      group,
      label: 'rarity-list items (schema asset-list-item)',
      unit: 'validations/s',
      values: itemRates,
      note,
    }),
  ];
}
