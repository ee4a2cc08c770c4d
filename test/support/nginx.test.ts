// The nginx harness itself: listens on ports the OS picked, with our own prefix, proxies, stops by pid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { findNginx, nginxSkip, startNginx } from './nginx.js';

test('nginx runs as our own process in front of a local server and stops by pid', { skip: nginxSkip() }, async () => {
  const upstream = createServer((_req, res) => res.end('from upstream'));
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const up = (upstream.address() as { port: number }).port;
  const nginx = await startNginx({
    listeners: 2,
    http: ([a, b]) =>
      [a, b]
        .map((port) => `server { listen 127.0.0.1:${port}; location / { proxy_pass http://127.0.0.1:${up}; } }`)
        .join('\n'),
  });
  const [port] = nginx.ports;
  try {
    assert.equal(new Set(nginx.ports).size, 2, `ports ${nginx.ports.join(', ')}`);
    const res = await fetch(`http://127.0.0.1:${port}/x`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'from upstream');
    // nginx took the sockets over: its own start-up said so, and it warned about nothing.
    assert.equal(nginx.errorLog(), '');
  } finally {
    await nginx.stop();
    upstream.close();
  }
  assert.throws(() => process.kill(nginx.pid, 0), 'the master process is gone');
  assert.equal(existsSync(nginx.prefix), false, 'the prefix is removed');
});

test('a config nginx refuses is one clear error, not a hang', { skip: nginxSkip() }, async () => {
  await assert.rejects(
    startNginx({ listeners: 1, http: () => 'this is not a directive;' }),
    /nginx exited at start-up .*unknown directive/,
  );
});

test('nginx lookup honours NGINX_PATH and PATH, and skips with a reason when absent', () => {
  assert.equal(findNginx({ NGINX_PATH: '/nonexistent/nginx' }), undefined);
  const none = { PATH: '/nonexistent' } as NodeJS.ProcessEnv;
  if (findNginx(none) === undefined) assert.match(String(nginxSkip(none)), /apt-get install nginx/);
  assert.equal(nginxSkip({ PATH: '/nonexistent', CHAINPROBE_REQUIRE_NGINX: '1' }), false);
});
