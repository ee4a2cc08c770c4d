// ERR-01 from the non-2xx answers of the whole run: grouped by cause (why the suite sent the
// request), each group observed with its statuses, content types and body shapes. Built in the
// parent run from what the reporter wrote, so it covers every family and survives a cut-short run.
import type { CheckResult } from '../src/verdict.js';
import { oneLine, type Non2xx } from './protocol.js';

const MAX_EXAMPLES = 2;
const MAX_SHAPES = 5;

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

export function errorChecks(items: readonly Non2xx[]): CheckResult[] {
  if (items.length === 0) {
    return [
      {
        id: 'errors.non2xx[none]',
        rule: 'ERR-01',
        verdict: 'observed',
        message: 'no non-2xx answer met in this run',
        evidence: { observation: { count: 0 } },
      },
    ];
  }
  const groups = new Map<string, Non2xx[]>();
  for (const it of items) {
    const list = groups.get(it.cause) ?? [];
    list.push(it);
    groups.set(it.cause, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([cause, arrived]): CheckResult => {
      // In the order of their purposes, not of arrival (requests go out together): the same run gives the same check.
      const list = [...arrived].sort((a, b) => (a.purpose ?? a.method).localeCompare(b.purpose ?? b.method));
      const statuses: Record<string, number> = {};
      const contentTypes = new Set<string>();
      const shapes = new Map<string, unknown>();
      for (const it of list) {
        statuses[String(it.status)] = (statuses[String(it.status)] ?? 0) + 1;
        contentTypes.add(it.contentType ?? 'none');
        const key = canonical(it.bodyShape);
        if (shapes.size < MAX_SHAPES && !shapes.has(key)) shapes.set(key, it.bodyShape);
      }
      const statusText = Object.entries(statuses)
        .map(([s, n]) => `${s} ×${n}`)
        .join(', ');
      const shapeText = [...shapes.keys()].join(' | ');
      return {
        id: `errors.non2xx[${slug(cause)}]`,
        rule: 'ERR-01',
        verdict: 'observed',
        message: oneLine(
          `${cause}: ${list.length} answer(s): ${statusText}; ${[...contentTypes].sort().join(', ')}; body ${shapeText}`,
        ),
        evidence: {
          observation: { statuses, contentTypes: [...contentTypes].sort(), bodyShapes: [...shapes.values()] },
          exchanges: list.slice(0, MAX_EXAMPLES).map((it) => it.exchange),
          purposes: [...new Set(list.map((it) => it.purpose ?? it.method))].slice(0, 20),
        },
      };
    });
}
