import { intentQueues } from '../../helpers/intent-queue-fixture.js';
import { describeIntentQueueConformance } from '../../helpers/intent-queue-conformance.js';
import { serviceAvailable } from '../../helpers/services.js';

if (await serviceAvailable('redis')) describeIntentQueueConformance(intentQueues());
