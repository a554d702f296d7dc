/** Stable codes of {@link WriteParamIssue}; callers branch on these, never on message text. */
export const WRITE_PARAM_ISSUE_CODES = [
  'REQUIRED',
  'TOO_LONG',
  'INVALID_VALUE',
  'INVALID_EMAIL',
  'CONFIRMATION_MISMATCH',
  'INVALID_COUNTRY_CODE',
  'INVALID_INDEX',
  'INVALID_JSON_OBJECT',
  'INVALID_XHTML',
  'INVALID_DATETIME',
  'FINISH_BEFORE_START',
  'INVALID_INTEGER',
  'INVALID_URL',
  'INVALID_COORDINATES',
  'HTML_NOT_ALLOWED',
  'MUTUALLY_EXCLUSIVE',
  'ONE_REQUIRED',
  'PARTIAL_ADDRESS',
  'PASSWORD_NOT_ALLOWED',
  'UNKNOWN_PARAM',
] as const;

export type WriteParamIssueCode = (typeof WRITE_PARAM_ISSUE_CODES)[number];

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
