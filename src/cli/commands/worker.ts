import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { runWorker } from '../../distributed/run-worker.js';
import { rootLogger } from '../../log/logger.js';
import { stopOnSignals } from '../../sync/runs/stop-on-signals.js';
import { requireDistributed } from './schedule.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'Distributed mode: take the rows of any run from Redis and send them, until SIGTERM or Ctrl-C.',
    )
    .option(
      '--concurrency <n>',
      'rows this process sends at once per lane (each conference key it holds), and on the shared queue',
      '8',
    )
    .option('--metrics-port <port>', 'serve /metrics, /healthz and /readyz on this port (0: any free one)')
    .option('--metrics-host <host>', 'the address they listen on', '127.0.0.1')
    .action(async (options: { concurrency: string; metricsPort?: string; metricsHost: string }) => {
      const concurrency = Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
        throw new ConfigError(
          `--concurrency must be a whole number from 1 to 1000, got "${options.concurrency}"`,
          {
            code: CODE.EVSYNC_USAGE,
          },
        );
      }
      const metricsPort = options.metricsPort === undefined ? undefined : Number(options.metricsPort);
      if (
        metricsPort !== undefined &&
        (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)
      ) {
        throw new ConfigError(
          `--metrics-port must be a port number from 0 to 65535, got "${options.metricsPort}"`,
          {
            code: CODE.EVSYNC_USAGE,
          },
        );
      }
      const config = requireDistributed();
      const signals = stopOnSignals(() =>
        process.stderr.write(
          '\nevsync: worker stopping — finishing the intents in flight (press again to quit now)\n',
        ),
      );
      try {
        await runWorker({
          config,
          concurrency,
          logger: rootLogger().child({ component: 'worker' }),
          signal: signals.signal,
          ...(metricsPort === undefined ? {} : { metrics: { port: metricsPort, host: options.metricsHost } }),
        });
      } finally {
        signals.dispose();
      }
    });
}
