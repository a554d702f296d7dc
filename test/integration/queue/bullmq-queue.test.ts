import { createBullmqQueue } from '../../../src/sync/queue/bullmq-queue.js';
import { bullmqTargets } from '../../helpers/bullmq-fixture.js';
import { describeQueueConformance } from '../../helpers/queue-conformance.js';
import { serviceAvailable } from '../../helpers/services.js';

if (await serviceAvailable('redis')) {
  const target = bullmqTargets();
  describeQueueConformance('bullmq', (options) => createBullmqQueue({ ...options, ...target() }));
}
