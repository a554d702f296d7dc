import { once } from 'node:events';
import type { Command } from 'commander';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { DEFAULT_DASHBOARD_PORT, serveDashboard } from '../../dashboard/serve-dashboard.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { deliveriesSettled } from '../../sync/notify/background-deliveries.js';
import { rootLogger } from '../../log/logger.js';

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description('Serve the web dashboard: runs, rows, errors; retry, resume and run again in a browser.')
    .option('--port <n>', 'the port to listen on (0: any free one)', String(DEFAULT_DASHBOARD_PORT))
    .option(
      '--host <address>',
      'the address to listen on; anything but loopback exposes it to the network',
      '127.0.0.1',
    )
    .option(
      '--queue-actions',
      'distributed mode: let Bull Board retry, clean and pause jobs (read-only without it; also EVSYNC_DASHBOARD_QUEUE_ACTIONS=1)',
    )
    .action(async (options: { port: string; host: string; queueActions?: boolean }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new ConfigError(`--port ${options.port}: a port number from 0 to 65535`, {
          code: CODE.EVSYNC_USAGE,
        });
      }
      const logger = rootLogger().child({ component: 'dashboard' });
      const ledger = await openLedger();
      try {
        const dashboard = await serveDashboard({
          ledger,
          logger,
          host: options.host,
          port,
          ...(options.queueActions ? { queueActions: true } : {}),
        });
        process.stderr.write(`evsync dashboard on ${dashboard.url} (Ctrl-C to stop)\n`);
        await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
        process.stderr.write('evsync dashboard: stopping\n');
        await dashboard.close();
      } finally {
        // Notices of runs the dashboard started are recorded in the ledger (bounded by `retry.deadline`).
        await deliveriesSettled();
        await ledger.close();
      }
    });
}
