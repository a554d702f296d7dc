import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CONTROL_QUEUE, Schedules } from '../../../src/distributed/schedules.js';
import { loadJobFile, type LoadedJob } from '../../../src/sync/job-file.js';
import { serviceAvailable, SERVICES } from '../../helpers/services.js';

const ready = await serviceAvailable('redis');

describe.runIf(ready)('Schedules.register', () => {
  const prefix = `evsync-test-${randomBytes(4).toString('hex')}`;
  const redis = new Redis(SERVICES.redis.url, { maxRetriesPerRequest: null });
  const dir = mkdtempSync(join(tmpdir(), 'evsync-schedules-'));
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });
  /** A job of `name` with this `schedule:` (YAML flow mapping), over an empty users file. */
  const scheduledJob = (name: string, schedule: string): LoadedJob => {
    writeFileSync(join(dir, 'people.csv'), 'client_id,email,first_name,last_name\n');
    writeFileSync(
      join(dir, `${name}.yaml`),
      `name: ${name}\nschedule: ${schedule}\nsteps:\n  - { mapping: users, source: { csv: ./people.csv } }\n`,
    );
    return loadJobFile(join(dir, `${name}.yaml`));
  };

  it('registers again when BullMQ finds the moment it computes taken, and says so when it stays taken', async () => {
    const job = scheduledJob('taken', '{ cron: "0 2 * * *", tz: Europe/Berlin }');
    const schedules = new Schedules(redis, prefix);
    // As BullMQ's addJobScheduler answers when that run exists already (SchedulerJobIdCollision).
    const taken = Object.assign(new Error('Cannot create job scheduler iteration - job ID already exists.'), {
      code: -10,
    });
    const upsert = vi.spyOn(Queue.prototype, 'upsertJobScheduler').mockRejectedValueOnce(taken);
    try {
      expect(await schedules.register(job)).toMatchObject({ name: 'taken' });
      expect(upsert).toHaveBeenCalledTimes(2);
      upsert.mockRejectedValue(taken);
      await expect(schedules.register(job)).rejects.toThrow(/fires as it is registered, again and again/);
    } finally {
      upsert.mockRestore();
      await schedules.remove('taken');
    }
  }, 20_000);

  it('registers again while a worker runs the schedule, and keeps one schedule', async () => {
    const job = scheduledJob('tick', '{ cron: "*/2 * * * * *", tz: Europe/Berlin, seconds: true }');
    const schedules = new Schedules(redis, prefix);
    const control = new Queue(CONTROL_QUEUE, { connection: redis, prefix });
    const worker = new Worker(CONTROL_QUEUE, null, { connection: redis, prefix, autorun: false });
    try {
      await schedules.register(job);
      // A worker takes its next run as it fires: BullMQ replaces the iteration it then adds.
      await control.promoteJobs();
      expect(await worker.getNextJob('test-token')).toBeDefined();
      const again = await schedules.register(job);
      expect(again).toMatchObject({ name: 'tick', cron: '*/2 * * * * *' });
      expect((await schedules.list()).map((schedule) => schedule.name)).toEqual(['tick']);
    } finally {
      await worker.close(true);
      await control.close();
    }
  }, 20_000);
});
