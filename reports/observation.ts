// Observations are nested JSON (status, headers, body shape, lists of extra fields). Reports show
// them as key/value lines and baselines compare them key by key, so both flatten them the same way;
// a comparison of two deployments does too, so the functions are src/compare/values.ts's (src/ may
// not import reports/).
export { canonical, flattenObservation, isPrimitiveList, sameValue, type Primitive } from '../src/compare/values.js';
