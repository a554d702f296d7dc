import type { CodeOf } from '../../errors/codes.js';

/** Stable codes of {@link WriteParamIssue}, the catalog's `write-params` layer; callers branch on these, never on message text. */
export type WriteParamIssueCode = CodeOf<'write-params'>;

/**
 * One problem with one write param. `param` is the full bracketed name as sent
 * (`user[svc_auth_attributes][email]`); `message` is for a person: it quotes the bad value
 * (cut short), says what is expected, never repeats a password, and does not start with the
 * param name, so callers can prefix their own label (`email: "bob@" is not an e-mail address`).
 */
export interface WriteParamIssue {
  param: string;
  message: string;
  code: WriteParamIssueCode;
}
