// Globals the shared (engine-free) code names, as k6 provides them or as the bundle's injected
// shim does. Only for type-checking the k6 scripts with their own tsconfig.
declare global {
  const Buffer: {
    from(text: string): { toString(encoding?: string): string };
    byteLength(text: string): number;
  };
  interface AbortSignal {
    readonly aborted: boolean;
  }
}
export {};
