/** Push-gateway store: grouping paths, rendering, and state that survives a restart. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGroupingPath, PushStore } from '../../src/engine/pushgateway/push-store.ts';
import { parseBody } from '../../src/engine/exposition/exposition.ts';

test('grouping paths: labels, base64 values, refusals', () => {
  assert.deepEqual(parseGroupingPath('job/j/instance/i'), [{ name: 'instance', value: 'i' }, { name: 'job', value: 'j' }]);
  assert.deepEqual(parseGroupingPath(`job@base64/${Buffer.from('a/b').toString('base64url')}=`), [{ name: 'job', value: 'a/b' }]);
  for (const bad of ['job/j/x', 'job/j/__x/1', 'job/j/a/1/a/2', 'job/', 'job/j/in-valid/1']) assert.throws(() => parseGroupingPath(bad), Error, bad);
});

test('rendered page is valid text format, histograms keep their family, state round-trips', () => {
  const s = new PushStore();
  s.push(parseGroupingPath('job/j'), '# HELP h Latency.\n# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 3\nh_sum 4\nh_count 3\n', true, 1_700_000_000_000);
  const page = s.render();
  const parsed = parseBody(page, false);
  assert.deepEqual(parsed.metadata.get('h'), { type: 'histogram', help: 'Latency.', unit: '' });
  assert.equal(parsed.samples.filter((x) => x.labels.some((l) => l.value === 'j')).length, 6, '4 histogram lines + push_time + push_failure_time');
  assert.match(page, /^push_time_seconds\{job="j"\} 1700000000$/m);
  const restored = new PushStore();
  restored.restore(JSON.parse(JSON.stringify(s.state())));
  assert.equal(restored.render(), page);
});
