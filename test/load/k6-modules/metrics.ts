// k6/metrics stand-in: a Rate records its samples where the k6 double's threshold evaluation reads them.
const registry = () =>
  ((globalThis as { __chainprobeK6Metrics?: Record<string, number[]> }).__chainprobeK6Metrics ??= {});

export class Rate {
  constructor(readonly name: string) {
    registry()[name] ??= [];
  }

  add(value: boolean | number): void {
    registry()[this.name]!.push(value ? 1 : 0);
  }
}
