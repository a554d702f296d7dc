import { describe } from 'vitest';
import { intentQueues } from '../../helpers/intent-queue-fixture.js';
import { describeIntentQueueConformance } from '../../helpers/intent-queue-conformance.js';
import { serviceAvailable } from '../../helpers/services.js';

// Declared even without Redis, skipped: a file with no suite at all fails the whole run
// ("No test suite found") where a machine without Redis should skip loudly.
const ready = await serviceAvailable('redis');
describe.skipIf(!ready)('the intent queue on Redis', () => {
  describeIntentQueueConformance(intentQueues());
});
