// --ca and --insecure on top of the target's tls section: the flags add CA files (relative to the
// directory npm was run from) and can switch verification off; the same checks as the file's.
import { checkTlsSettings } from '../tls/trust.js';
import { TargetError } from './error.js';
import type { ResolvedTarget } from './types.js';

export function withTlsFlags(
  target: ResolvedTarget,
  ca: readonly string[],
  insecure: boolean,
  cwd = process.env.INIT_CWD || process.cwd(),
): ResolvedTarget {
  if (ca.length === 0 && !insecure) return target;
  const checked = checkTlsSettings({ ca: [...ca], insecure }, cwd, { ca: '--ca', cert: '--cert', key: '--key' });
  if (checked.problems.length) throw new TargetError(checked.problems);
  const base = target.tls ?? { ca: [], insecure: false };
  return { ...target, tls: { ...base, ca: [...base.ca, ...checked.settings.ca], insecure: base.insecure || insecure } };
}
