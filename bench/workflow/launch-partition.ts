/**
 * The issue-15 scenario on a fresh partition in a temp directory, for the in-process workflow benches: the
 * workflow Event livestream-submit-ch1 → countdown 1 h before ch1's start 30 days out → tag, and its channel,
 * on a test clock set to `T0`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPartition } from '../../src/engine/workflow/index.ts';

export const H = 3_600_000;
export const T0 = 1_700_000_000_000;

export async function openLaunchPartition(): Promise<Awaited<ReturnType<typeof openPartition>> & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-wf-bench-'));
  const opened = await openPartition({ dataDir: dir, partition: 0, partitions: 1, testClock: true, cacheEntries: 2000 });
  const { engine } = opened;
  await engine.call('clock', { set: T0 });
  engine.call('channels.upsert', { body: { businessId: 170, channelId: 'ch1', name: 'launch', liveStatus: 'unStart', startTime: T0 + 30 * 24 * H } });
  engine.call('workflow.save', { body: {
    version: 1, businessId: 170, title: 'launch reminder', enable: true, status: 1, oneOff: false, target: '{"type":"all"}', workflowElements: [
      { displayId: 'e1', type: 'Event', incomings: '[]', outgoings: '["p1"]', properties: [{ name: 'event', operation: 'in', value: 'livestream' }, { name: 'eventValue', operation: 'in', value: 'livestream-submit-ch1' }] },
      { displayId: 'a1', type: 'Action', incomings: '["p1"]', outgoings: '["p2"]', properties: [], extensions: '{"action":"countdown","countdown":"livestream_rule_starttime_ch1","countdownValue":3600000}' },
      { displayId: 'a2', type: 'Action', incomings: '["p2"]', outgoings: '[]', properties: [], extensions: '{"action":"tag","actionValue":"reminded"}' },
    ] } });
  await engine.flush();
  return { ...opened, dir };
}
