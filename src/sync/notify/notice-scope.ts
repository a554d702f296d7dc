import type { Ledger } from '../../ledger/ledger.js';

/**
 * The ledger seen from a notice's conference (migration 13): what a review of that job
 * reads its runs and writes its state through. Conference 0 (not known) is the ledger as a
 * whole; a conference the ledger no longer lists is too.
 */
export async function ledgerForNotice(ledger: Ledger, conferenceId: number): Promise<Ledger> {
  if (conferenceId === 0 || ledger.conference?.id === conferenceId) return ledger;
  const conference = (await ledger.listConferences()).find((known) => known.id === conferenceId);
  return conference === undefined ? ledger : ledger.forConference(conference);
}

/**
 * The ledger seen from the conference of the job's newest run that names one: where a tick
 * that failed before its run existed is recorded and told (the job's notices are that
 * conference's). The ledger as a whole when none does.
 */
export async function ledgerForJob(ledger: Ledger, jobName: string): Promise<Ledger> {
  const runs = await ledger.listRuns(20, { jobName });
  const named = runs.find((run) => run.conference !== null);
  return named?.conference ? ledgerForNotice(ledger, named.conference.id) : ledger;
}
