// The modules a run against every kind of node loads on first use, loaded ahead while the command
// has nothing else to do (the embedded reference's thread starting): the same work, moved into a
// wait instead of onto the run's own path.
export function warmRunModules(): Promise<unknown> {
  return Promise.allSettled([
    import('./pipeline.js'),
    import('undici'),
    import('../src/clients/grpc-reflection.js'),
    import('../src/clients/grpc-health.js'),
    import('../src/clients/websocket.js'),
  ]);
}
