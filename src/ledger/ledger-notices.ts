/**
 * What the ledger keeps for notifications (docs/notifications.md, migrations 12 and 13): per
 * job and conference, the `notify:` settings its last run carried and the problems last
 * told; per message and channel, whether it was delivered. Deciding what to tell is done
 * above it (`src/sync/notify/`); the ledger only makes a change of state happen once.
 * `state`, `saveSettings`, `forget`, `changeState` and `addDelivery` are the ledger's
 * conference's (`Ledger.forConference`); `states` and `deliveries` read every conference's.
 */
export interface LedgerNotices {
  /** Keeps the job's settings (as written: names of variables, never their values). */
  saveSettings(jobName: string, settings: unknown): Promise<void>;
  /** Removes the job's settings and state: its job file no longer has `notify:`. Deliveries stay. */
  forget(jobName: string): Promise<void>;
  state(jobName: string): Promise<JobNoticeState | undefined>;
  /** Every job with settings, in every conference, by name. */
  states(): Promise<JobNoticeState[]>;
  /**
   * Sets the job's problems if its state is still `fromKey` (compare and set, one
   * statement): true for the one caller that made the change, false if another process
   * did first or the job has no settings.
   */
  changeState(jobName: string, fromKey: string, to: NoticeStateChange): Promise<boolean>;
  /** A message about to be sent on one channel; its id for `finishDelivery`. */
  addDelivery(delivery: NewNoticeDelivery): Promise<number>;
  finishDelivery(id: number, outcome: NoticeDeliveryOutcome): Promise<void>;
  /** Newest first, of every conference unless one is named. @defaultValue limit 20 */
  deliveries(filter?: DeliveryFilter): Promise<NoticeDelivery[]>;
}

export interface DeliveryFilter {
  jobName?: string;
  /** The conference's id (0: not known). @defaultValue every conference */
  conferenceId?: number;
  limit?: number;
}

/** One rule that holds for a job now, and what it says (`run 20261127-0212-ab12 ended aborted`). */
export interface NoticeProblem {
  rule: string;
  text: string;
}

export interface JobNoticeState {
  jobName: string;
  /** The conference the state is of (0: not known, written before migration 13 by a job with no run naming one). */
  conferenceId: number;
  settings: unknown;
  problems: NoticeProblem[];
  /** The rules of `problems`, sorted and joined: what "a change of state" compares. */
  stateKey: string;
  changedAt: Date;
  /** The run the last change was told about, if one. */
  runId: string | null;
}

export interface NoticeStateChange {
  problems: NoticeProblem[];
  stateKey: string;
  runId: string | null;
}

/** `problem`: something went wrong (or more did); `recovered`: back to normal. */
export type NoticeEvent = 'problem' | 'recovered';

export interface NewNoticeDelivery {
  jobName: string;
  runId: string | null;
  event: NoticeEvent;
  /** The channel in words, without secrets: `webhook https://hooks.example.com`, `email to ops@example.com`. */
  channel: string;
}

export interface NoticeDeliveryOutcome {
  status: 'sent' | 'failed';
  attempts: number;
  /** Why the last attempt failed, without secrets. */
  error?: string;
}

export interface NoticeDelivery extends NewNoticeDelivery {
  id: number;
  conferenceId: number;
  status: 'sending' | 'sent' | 'failed';
  attempts: number;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}
