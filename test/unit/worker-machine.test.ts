import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { workerMachine, type WorkerEvent } from '../../machines/worker.machine.js';

const start = (jobId: number): WorkerEvent => ({ type: 'worker.start', jobId });
const finish: WorkerEvent = { type: 'worker.finish' };
const stop: WorkerEvent = { type: 'worker.stop' };

function drive(events: WorkerEvent[]) {
  let [snapshot] = initialTransition(workerMachine, { workerId: 'w1' });
  for (const event of events) [snapshot] = transition(workerMachine, snapshot, event);
  return snapshot;
}

describe('worker machine', () => {
  it('starts idle with its id, no job and nothing processed', () => {
    const s = drive([]);
    expect(s.value).toBe('idle');
    expect(s.context).toEqual({ workerId: 'w1', jobId: null, processed: 0 });
  });

  it('runs a job: idle → running holds the job id, finish → idle counts it', () => {
    const running = drive([start(42)]);
    expect(running.value).toBe('running');
    expect(running.context.jobId).toBe(42);
    const idle = drive([start(42), finish]);
    expect(idle.value).toBe('idle');
    expect(idle.context).toEqual({ workerId: 'w1', jobId: null, processed: 1 });
  });

  it('counts every job it finishes', () => {
    expect(drive([start(1), finish, start(2), finish, start(3), finish]).context.processed).toBe(3);
  });

  it('does not take a second job while running', () => {
    const running = drive([start(1)]);
    const [next, actions] = transition(workerMachine, running, start(2));
    expect(next).toBe(running);
    expect(actions).toEqual([]);
    expect(next.context.jobId).toBe(1);
  });

  it('ignores finish while idle', () => {
    const idle = drive([]);
    expect(transition(workerMachine, idle, finish)[0]).toBe(idle);
  });

  it('stop while running waits in stopping, keeping the job until it finishes', () => {
    const stopping = drive([start(7), stop]);
    expect(stopping.value).toBe('stopping');
    expect(stopping.context.jobId).toBe(7);
    expect(stopping.status).toBe('active');
  });

  it('takes no new job while stopping', () => {
    const stopping = drive([start(7), stop]);
    expect(transition(workerMachine, stopping, start(8))[0]).toBe(stopping);
  });

  it('stopping → stopped once the job finishes, and the job is counted', () => {
    const stopped = drive([start(7), stop, finish]);
    expect(stopped.value).toBe('stopped');
    expect(stopped.status).toBe('done');
    expect(stopped.context).toEqual({ workerId: 'w1', jobId: null, processed: 1 });
  });

  it('stop while idle stops at once', () => {
    const stopped = drive([stop]);
    expect(stopped.value).toBe('stopped');
    expect(stopped.status).toBe('done');
    expect(stopped.context.processed).toBe(0);
  });

  it('a stopped worker accepts nothing', () => {
    const stopped = drive([stop]);
    for (const event of [start(1), finish, stop]) expect(transition(workerMachine, stopped, event)[0]).toBe(stopped);
  });

  it('behaves the same as a live actor', () => {
    const actor = createActor(workerMachine, { input: { workerId: 'live' } }).start();
    actor.send(start(5));
    expect(actor.getSnapshot().value).toBe('running');
    actor.send(stop);
    actor.send(start(6));
    expect(actor.getSnapshot().context).toEqual({ workerId: 'live', jobId: 5, processed: 0 });
    actor.send(finish);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.processed).toBe(1);
    actor.stop();
  });
});
