/**
 * Operation table for state-changing management calls (workflows, channels). Arguments are already typed
 * by the route layer; bodies are validated by the engine.
 */
import type { Job, Runner } from './runner.ts';
import {
  deleteChannel, deleteWorkflow, saveWorkflow, setChannelStatus, setEnable, updateChannel, upsertChannel,
} from './manage.ts';
import { renderWorkflow } from './wire.ts';

type Op = (r: Runner, args: any, job: Job) => unknown;

export const MANAGE_OPS: Record<string, Op> = {
  'workflow.save': (r, a: { body: unknown }, job) => {
    const { workflow, warnings } = saveWorkflow(r, a.body, job);
    return { workflow: renderWorkflow(r, workflow), warnings };
  },
  'workflow.delete': (r, a: { id: number }) => deleteWorkflow(r, a.id),
  'workflow.enable': (r, a: { id: number; enable: boolean }, job) => renderWorkflow(r, setEnable(r, a.id, a.enable, job)),
  'channels.upsert': (r, a: { body: unknown }, job) => upsertChannel(r, a.body, job),
  'channels.update': (r, a: { businessId: number; channelId: string; body: unknown }, job) => updateChannel(r, a.businessId, a.channelId, a.body, job),
  'channels.status': (r, a: { businessId: number; channelId: string; body: unknown }, job) => setChannelStatus(r, a.businessId, a.channelId, a.body, job),
  'channels.delete': (r, a: { businessId: number; channelId: string }) => {
    const { channel, cancelledTimers } = deleteChannel(r, a.businessId, a.channelId);
    return { ...channel, cancelledTimers };
  },
};
