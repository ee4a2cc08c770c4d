import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress } from '../../run/progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 80, write: (s: string) => (writes.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, writes, lines: () => writes.join('').split('\n').filter(Boolean) };
}

test('TTY: one status line redrawn in place, with family, counts and expected remaining time', () => {
  const { stream, writes } = fakeStream(true);
  let now = 0;
  const p = createProgress(stream, () => now);
  p({ stage: 'contracts', family: 'auth', done: 0, total: 40 });
  for (let i = 1; i <= 20; i++) {
    now += 200;
    p({ stage: 'contracts', family: 'auth', done: i, total: 40 });
  }
  assert.ok(
    writes.every((w) => w.startsWith('\r\x1b[2K') && !w.includes('\n')),
    'no new lines while running',
  );
  assert.equal(writes.at(-1), '\r\x1b[2Kchainprobe contracts · auth · 20 of 40 rules (50%) · ~4.0 s left');
  now += 10;
  p({ stage: 'probes', phase: 'drain', requestsSent: 12, expectedRemainingMs: 65_000 });
  assert.equal(writes.at(-1), '\r\x1b[2Kchainprobe probes · drain · 12 requests sent · ~1 min 5 s left');
  p({ stage: 'info', message: 'budget: 900 of 1000 requests used' });
  assert.deepEqual(writes.slice(-3), [
    '\r\x1b[2K',
    'budget: 900 of 1000 requests used\n',
    '\r\x1b[2Kchainprobe probes · drain · 12 requests sent · ~1 min 5 s left',
  ]);
  p.end();
  assert.equal(writes.at(-1), '\n');
  for (const w of writes) assert.ok(w.replace('\r\x1b[2K', '').length <= 80);
});

test('TTY redraws are throttled, but a new family or the last check always shows', () => {
  const { stream, writes } = fakeStream(true);
  let now = 0;
  const p = createProgress(stream, () => now);
  for (let i = 0; i < 100; i++) {
    now += 5;
    p({ stage: 'contracts', family: 'nft', done: i, total: 100 });
  }
  assert.ok(writes.length <= 6, `${writes.length} redraws in 0.5 s`);
  p({ stage: 'contracts', family: 'node', done: 100, total: 100 });
  assert.match(writes.at(-1)!, /node · 100 of 100 rules \(100%\)$/);
});

test('no TTY: plain lines, at most about one a second per stage; changes and the end always show', () => {
  const { stream, lines } = fakeStream(false);
  let now = 0;
  const p = createProgress(stream, () => now);
  for (let i = 0; i < 30; i++) {
    now += 100; // 3 s of events, 10 a second
    p({ stage: 'contracts', family: 'auth', done: i, total: 60 });
    p({ stage: 'probes', phase: 'burst', requestsSent: i });
  }
  const contracts = lines().filter((l) => l.startsWith('chainprobe: contracts'));
  const probes = lines().filter((l) => l.startsWith('chainprobe: probes'));
  assert.ok(contracts.length >= 3 && contracts.length <= 4, `${contracts.length} contract lines in 3 s`);
  assert.ok(probes.length >= 3 && probes.length <= 4, `${probes.length} probe lines in 3 s`);
  assert.ok(lines().every((l) => !l.includes('\r') && !l.includes('\x1b')));

  now += 10;
  p({ stage: 'probes', phase: 'recover', requestsSent: 31, expectedRemainingMs: 2000 });
  assert.equal(lines().at(-1), 'chainprobe: probes · recover · 31 requests sent · ~2.0 s left');
  now += 10;
  p({ stage: 'probes', phase: 'recover', requestsSent: 32, expectedRemainingMs: 1990 });
  assert.equal(lines().at(-1), 'chainprobe: probes · recover · 31 requests sent · ~2.0 s left', 'throttled');
  p({ stage: 'info', message: 'line\nwith \u001b[31mcontrol' });
  assert.equal(lines().at(-1), 'chainprobe: line with ?[31mcontrol');
  p.end();
  assert.equal(
    lines().at(-1),
    'chainprobe: probes · recover · 32 requests sent · ~2.0 s left',
    'end() prints the last throttled state',
  );
  const count = lines().length;
  p.end();
  assert.equal(lines().length, count, 'end() twice prints nothing more');
});
