import type { FakeK6 } from '../k6-double.js';

const fake = () => (globalThis as { __chainprobeFakeK6?: FakeK6 }).__chainprobeFakeK6!;

export function sleep(seconds: number): void {
  fake().sleep(seconds);
}

export const checks: { name: string; passed: boolean }[] = [];

export function check(_value: unknown, sets: Record<string, () => boolean>): boolean {
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    const passed = fn();
    checks.push({ name, passed });
    all &&= passed;
  }
  (globalThis as { __chainprobeK6Checks?: typeof checks }).__chainprobeK6Checks = checks;
  return all;
}
