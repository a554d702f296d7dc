import type { Command } from 'commander';

type Registrar = (program: Command) => void;

/**
 * Each command lives in its own file and adds itself to the program; here each is named
 * and loaded on demand. A process loads only the command it runs (`evsync runs` never
 * loads BullMQ, the MySQL driver or the dashboard): half a second less at every start.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<Registrar>>> = {
  sign: async () => (await import('./sign.js')).registerSignCommand,
  ping: async () => (await import('./ping.js')).registerPingCommand,
  sandbox: async () => (await import('./sandbox.js')).registerSandboxCommand,
  run: async () => (await import('./run.js')).registerRunCommand,
  plan: async () => (await import('./plan.js')).registerPlanCommand,
  audit: async () => (await import('./audit.js')).registerAuditCommand,
  resume: async () => (await import('./resume.js')).registerResumeCommand,
  retry: async () => (await import('./retry.js')).registerRetryCommand,
  runs: async () => (await import('./runs.js')).registerRunsCommand,
  report: async () => (await import('./report.js')).registerReportCommand,
  prune: async () => (await import('./prune.js')).registerPruneCommand,
  forget: async () => (await import('./forget.js')).registerForgetCommand,
  'release-hold': async () => (await import('./release-hold.js')).registerReleaseHoldCommand,
  demo: async () => (await import('./demo.js')).registerDemoCommand,
  validate: async () => (await import('./validate.js')).registerValidateCommand,
  worker: async () => (await import('./worker.js')).registerWorkerCommand,
  schedule: async () => (await import('./schedule.js')).registerScheduleCommand,
  status: async () => (await import('./status.js')).registerStatusCommand,
  dashboard: async () => (await import('./dashboard.js')).registerDashboardCommand,
  version: async () => (await import('./version.js')).registerVersionCommand,
  init: async () => (await import('./init.js')).registerInitCommand,
  doctor: async () => (await import('./doctor.js')).registerDoctorCommand,
};

/** The registrars of `names`, or of every command (help, an unknown or a missing command). */
export async function commandRegistrars(names?: readonly string[]): Promise<Registrar[]> {
  const wanted = names?.every((name) => name in COMMANDS) ? names : Object.keys(COMMANDS);
  return Promise.all(wanted.map((name) => COMMANDS[name]!()));
}
