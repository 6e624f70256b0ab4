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

/** Cross-partition inputs of a replicated management call (see `WorkflowEngine.replicated`). */
export interface Replicated { anyRuns?: boolean; at?: number }

export const MANAGE_OPS = {
  'workflow.save': (r: Runner, a: Replicated & { body: unknown }, job: Job) => {
    const { workflow, warnings } = saveWorkflow(r, a.body, job);
    return { workflow: renderWorkflow(r, workflow), warnings };
  },
  'workflow.delete': (r: Runner, a: Replicated & { id: number }, _job: Job) => deleteWorkflow(r, a.id),
  'workflow.enable': (r: Runner, a: Replicated & { id: number; enable: boolean }, job: Job) => renderWorkflow(r, setEnable(r, a.id, a.enable, job)),
  'channels.upsert': (r: Runner, a: Replicated & { body: unknown }, job: Job) => upsertChannel(r, a.body, job),
  'channels.update': (r: Runner, a: Replicated & { businessId: number; channelId: string; body: unknown }, job: Job) => updateChannel(r, a.businessId, a.channelId, a.body, job),
  'channels.status': (r: Runner, a: Replicated & { businessId: number; channelId: string; body: unknown }, job: Job) => setChannelStatus(r, a.businessId, a.channelId, a.body, job),
  'channels.delete': (r: Runner, a: Replicated & { businessId: number; channelId: string }, _job: Job) => {
    const { channel, cancelledTimers } = deleteChannel(r, a.businessId, a.channelId);
    return { ...channel, cancelledTimers };
  },
} satisfies Record<string, Op>;
