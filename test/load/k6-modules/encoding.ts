export function b64encode(input: string, variant?: string): string {
  // globalThis.Buffer: a bare `Buffer` would be the bundle's injected shim, which calls this.
  return globalThis.Buffer.from(input).toString(variant === 'rawurl' ? 'base64url' : 'base64');
}
