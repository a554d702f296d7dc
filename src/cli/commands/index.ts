import type { Command } from 'commander';
import { registerPingCommand } from './ping.js';
import { registerSignCommand } from './sign.js';
import { registerSandboxCommand } from './sandbox.js';
import { registerRunCommand } from './run.js';
import { registerPlanCommand } from './plan.js';
import { registerResumeCommand } from './resume.js';
import { registerRetryCommand } from './retry.js';
import { registerRunsCommand } from './runs.js';
import { registerReportCommand } from './report.js';
import { registerDemoCommand } from './demo.js';
import { registerValidateCommand } from './validate.js';
import { registerWorkerCommand } from './worker.js';
import { registerScheduleCommand } from './schedule.js';
import { registerStatusCommand } from './status.js';
import { registerDashboardCommand } from './dashboard.js';

/** Each command lives in its own file and adds itself to the program here. */
export const commandRegistrars: Array<(program: Command) => void> = [
  registerSignCommand,
  registerPingCommand,
  registerSandboxCommand,
  registerRunCommand,
  registerPlanCommand,
  registerResumeCommand,
  registerRetryCommand,
  registerRunsCommand,
  registerReportCommand,
  registerDemoCommand,
  registerValidateCommand,
  registerWorkerCommand,
  registerScheduleCommand,
  registerStatusCommand,
  registerDashboardCommand,
];
