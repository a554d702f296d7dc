import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../log/logger.js';
import { reportQueueErrors } from './queue-errors.js';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
}

describe('reportQueueErrors', () => {
  it('says each kind of trouble once for all the queues of a process, again after a minute', () => {
    const said: string[] = [];
    const logger = { warn: (_fields: unknown, message: string) => said.push(message) } as unknown as Logger;
    let clock = 1_000_000;
    const queues = [new EventEmitter(), new EventEmitter(), new EventEmitter()];
    queues.forEach((queue, i) => reportQueueErrors(queue, `queue ${i}`, logger, () => clock));
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    for (let round = 0; round < 5; round++)
      for (const queue of queues) {
        queue.emit('error', refused());
        queue.emit('error', reset);
      }
    expect(said).toHaveLength(2);
    expect(said[0]).toContain('Redis connection trouble (connect ECONNREFUSED 127.0.0.1:1)');
    clock += 61_000;
    queues[2]!.emit('error', refused());
    expect(said).toHaveLength(3);
  });
});
