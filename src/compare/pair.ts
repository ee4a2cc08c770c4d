// CMP-01: which check of one run is which check of the other. Check ids name their resource in
// brackets (`nft.event[<event id>].unix-time`); each side names the resources of its own target
// file, so a resource id only one side names is replaced by its place among the ids that side
// names in that position (the target file's order, as the checks came), and one both name stays
// itself: its checks pair directly, and its answers are the same resource's (CMP-07).
import type { CheckResult } from '../verdict.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;
const HEX = /^0x[0-9a-f]{6,}$/i;
const OPAQUE = /^(?=.*\d)[A-Za-z0-9_-]{16,}$/;

/** Whether a bracketed part of a check id, or a path segment, names a resource by id. */
export const isResourceId = (s: string): boolean => UUID.test(s) || ULID.test(s) || HEX.test(s) || OPAQUE.test(s);

const BRACKETS = /\[([^\]]*)\]/g;

/** Where a bracketed id sits: the check id before it, without its brackets (`nft.agree`). */
const slotOf = (id: string, at: number) => id.slice(0, at).replace(BRACKETS, '');

/** The resource ids a side's check ids name, per position, in the order they first came. */
function idsBySlot(checks: readonly CheckResult[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of checks)
    for (const m of c.id.matchAll(BRACKETS)) {
      const seg = m[1]!;
      if (!isResourceId(seg)) continue;
      const slot = slotOf(c.id, m.index);
      const list = out.get(slot) ?? [];
      if (!list.includes(seg)) list.push(seg);
      out.set(slot, list);
    }
  return out;
}

export interface Normaliser {
  /** The check id with each id only this side names replaced by `#n` (its place there). */
  checkId(id: string): string;
  /** The raw ids only this side names, each with its placeholder. */
  readonly ownIds: ReadonlyMap<string, string>;
}

function normaliserOf(mine: Map<string, string[]>, theirs: Map<string, string[]>): Normaliser {
  const ownIds = new Map<string, string>();
  const placeholder = new Map<string, string>();
  for (const [slot, ids] of mine) {
    const other = new Set(theirs.get(slot) ?? []);
    let n = 0;
    for (const id of ids) {
      if (other.has(id)) continue;
      const p = `#${++n}`;
      placeholder.set(`${slot}\u0000${id}`, p);
      ownIds.set(id, p);
    }
  }
  return {
    ownIds,
    checkId: (id) =>
      id.replace(BRACKETS, (whole, seg: string, at: number) => {
        const p = placeholder.get(`${slotOf(id, at)}\u0000${seg}`);
        return p ? `[${p}]` : whole;
      }),
  };
}

/** One normaliser per side, each knowing which ids the other names too. */
export function normalisers(a: readonly CheckResult[], b: readonly CheckResult[]): [Normaliser, Normaliser] {
  const ia = idsBySlot(a);
  const ib = idsBySlot(b);
  return [normaliserOf(ia, ib), normaliserOf(ib, ia)];
}

export interface Keyed {
  key: string;
  check: CheckResult;
  /** The normalised check id, as the report shows it. */
  id: string;
}

/** A side's checks by pairing key: rule, normalised id, node; a repeated one gets `#2`, `#3`. */
export function keyedChecks(checks: readonly CheckResult[], n: Normaliser): Map<string, Keyed> {
  const out = new Map<string, Keyed>();
  for (const c of checks) {
    const id = n.checkId(c.id);
    const base = `${c.rule}\u0000${id}\u0000${c.nodeKind ?? ''}/${c.node ?? ''}`;
    let key = base;
    for (let i = 2; out.has(key); i++) key = `${base}#${i}`;
    out.set(key, { key, check: c, id });
  }
  return out;
}
