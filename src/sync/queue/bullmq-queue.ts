import type { BullmqTarget } from './bullmq-target.js';
import { BullmqConsumer, type BullmqConsumerOptions } from './bullmq-consumer.js';
import { BullmqProducer, type BullmqProducerOptions } from './bullmq-producer.js';
import type { QueueEventMap, QueueOptions, QueueStats, WorkQueue } from './work-queue.js';
import { QueueClosedError } from './work-queue.js';

export type BullmqQueueOptions<W, R> = QueueOptions<W, R> &
  BullmqTarget &
  Omit<BullmqProducerOptions<W>, keyof BullmqTarget> &
  Pick<BullmqConsumerOptions<W, R>, 'maxStartedAttempts' | 'workerName'>;

/**
 * The engine's queue on BullMQ, both halves in this process: items travel through Redis
 * (JSON), at most `concurrency` handlers run at once, in enqueue order when it is 1. It
 * passes the conformance suite the inline queue passes. Distributed mode puts the halves
 * in different processes instead (docs/distributed.md, "The queue adapter").
 */
class BullmqQueue<W, R> implements WorkQueue<W, R> {
  readonly adapter = 'bullmq';
  private closing: Promise<void> | undefined;

  constructor(
    private readonly producer: BullmqProducer<W, R>,
    private readonly consumer: BullmqConsumer<W, R>,
  ) {}

  get closed(): boolean {
    return this.closing !== undefined;
  }

  enqueue(items: readonly W[]): Promise<void> {
    if (this.closing) return Promise.reject(new QueueClosedError());
    return this.producer.enqueue(items);
  }

  drain(): Promise<void> {
    return this.producer.drain();
  }

  stats(): QueueStats {
    return this.producer.stats();
  }

  on<E extends keyof QueueEventMap<W, R>>(
    event: E,
    listener: (...args: QueueEventMap<W, R>[E]) => void,
  ): () => void {
    return this.producer.on(event, listener);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Finishes the handlers in flight and takes no more…
      await this.consumer.close();
      // …then drops what was not started: the ledger has it as pending.
      await this.producer.withdraw();
      await this.producer.close();
    })();
    return this.closing;
  }
}

/** Opens both halves; a `QueueConnectionError` if Redis cannot be reached. */
export async function createBullmqQueue<W, R>(options: BullmqQueueOptions<W, R>): Promise<WorkQueue<W, R>> {
  const producer = await BullmqProducer.open<W, R>(options);
  try {
    return new BullmqQueue(producer, await BullmqConsumer.start<W, R>(options));
  } catch (error) {
    await producer.close();
    throw error;
  }
}
