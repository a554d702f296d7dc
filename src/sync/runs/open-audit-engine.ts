import { platformConfigFor } from '../../config/conference.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Logger } from '../../log/logger.js';
import { PlatformClient } from '../../platform/platform-client.js';
import { auditJob } from '../audit/audit-job.js';
import type { AuditSummary, DriftSink } from '../audit/drift.js';
import type { LoadedJob } from '../job-file.js';
import { openEngine, type OpenEngine } from './open-engine.js';

export interface OpenAuditEngineOptions {
  logger: Logger;
  signal?: AbortSignal;
  /** A ledger to use instead of the one the environment names (the dashboard's). */
  ledger?: Ledger;
}

/** An engine whose client also reads the platform back; `deps` is what a repair runs with. */
export interface AuditEngine extends OpenEngine {
  /** `auditJob` of this job through the engine's ledger and client (docs/audit.md). */
  audit(sink: DriftSink): Promise<AuditSummary>;
}

/**
 * What `evsync audit` and the dashboard's audit both stand on: the job's conference client
 * with the job's rate (the read-back pays the same rate limit and retries as a run's
 * writes), in this process also where `REDIS_URL` is set, and the ledger seen from that
 * conference, whose id map and synced hashes the audit matches against.
 */
export async function openAuditEngine(job: LoadedJob, options: OpenAuditEngineOptions): Promise<AuditEngine> {
  const { logger, signal } = options;
  const client = PlatformClient.fromConfig(platformConfigFor(job.platform), {
    rateLimit: { requestsPerSecond: job.rate.per_second, concurrency: job.rate.concurrency },
    logger,
    ...(signal ? { signal } : {}),
  });
  let engine: OpenEngine;
  try {
    engine = await openEngine({
      rate: job.rate,
      logger,
      client,
      ...(signal ? { signal } : {}),
      ...(options.ledger ? { ledger: options.ledger } : {}),
    });
  } catch (error) {
    await client.close();
    throw error;
  }
  return {
    deps: engine.deps,
    audit: (sink) => auditJob({ ledger: engine.deps.ledger, platform: client, logger, sink }, job),
    close: async () => {
      try {
        await engine.close();
      } finally {
        await client.close();
      }
    },
  };
}
