import { CODE } from '../../errors/codes.js';
import { emailConfirmationParam, emailParam, passwordParam } from '../vendor.js';
import { LENGTH_LIMITS, MEMBERSHIPS } from './enums.js';
import type { ParamChecker } from './param-checker.js';
import { quote } from './text-rules.js';
import { checkUserAccountParams, USER_ACCOUNT_PARAM_PATTERNS } from './user-account-params.js';

const POSITION = 'user[employee_attributes][position]';
const COMPANY = 'user[employee_attributes][company_attributes][name]';

/**
 * `POST /user` (mode `create`) and `PUT /user/member/{id}` (mode `update`), spec 4.2. On
 * update only the params sent are checked, and a password is refused (rule 5).
 */
export function checkUserParams(check: ParamChecker, vendor: string): void {
  const email = emailParam(vendor);
  const confirmation = emailConfirmationParam(vendor);
  const password = passwordParam(vendor);

  check.maxChars('user[salutation]', LENGTH_LIMITS.salutation);
  check.required('user[first_name]', 'the first name');
  check.maxChars('user[first_name]', LENGTH_LIMITS.firstName);
  check.required('user[last_name]', 'the last name');
  check.maxChars('user[last_name]', LENGTH_LIMITS.lastName);
  for (const line of ['user[salutation]', 'user[first_name]', 'user[last_name]', POSITION, COMPANY])
    check.oneLine(line);
  check.oneOf('user[membership]', MEMBERSHIPS);

  if (check.required(email, 'the e-mail address') !== undefined) check.email(email);
  if (check.has(confirmation)) {
    const given = check.get(confirmation) ?? '';
    const expected = check.get(email);
    if (expected === undefined) {
      check.report(
        confirmation,
        CODE.CONFIRMATION_MISMATCH,
        `the confirmation is sent without ${email}; send both or neither`,
      );
    } else if (given !== expected) {
      check.report(
        confirmation,
        CODE.CONFIRMATION_MISMATCH,
        `${quote(given)} does not match ${email} (${quote(expected)})`,
      );
    }
  }
  if (check.mode === 'update' && check.has(password)) {
    // Never quote the value: it is a password.
    check.report(
      password,
      CODE.PASSWORD_NOT_ALLOWED,
      'a password must not be sent in an update: it would change the stored password',
    );
  }

  // On update a company stored earlier still counts, so only a company sent blank fails.
  if (check.value(POSITION) !== undefined && (check.mode === 'create' || check.has(COMPANY))) {
    check.requiredAlways(COMPANY, 'the company name', `${POSITION} is given`);
  }

  check.httpUrl('user[item_attributes][icon_uri]');
  check.xhtml('user[item_attributes][article_attributes][content]');
  check.oneOf('user[item_attributes][remove_article]', ['1', '0']);
  check.clientId('client_id');
  check.positiveInteger('id');
  checkUserAccountParams(check);
}

/** Param names a user write knows, for strict mode. */
export function userParamPatterns(vendor: string, mode: 'create' | 'update'): (string | RegExp)[] {
  const exact = [
    'user[salutation]',
    'user[first_name]',
    'user[last_name]',
    'user[membership]',
    emailParam(vendor),
    emailConfirmationParam(vendor),
    'user[account_attributes][account_name]',
    POSITION,
    COMPANY,
    'user[item_attributes][icon_uri]',
    'user[item_attributes][tags_list]',
    'user[item_attributes][article_attributes][content]',
    'user[item_attributes][remove_article]',
    'client_id',
  ];
  // A password on update is reported as PASSWORD_NOT_ALLOWED, not as unknown.
  exact.push(passwordParam(vendor));
  if (mode === 'update') exact.push('id');
  return [...exact, ...USER_ACCOUNT_PARAM_PATTERNS];
}
