/** A users CSV in the shipped `users` mapping's columns. */
export function usersCsv(
  rows: ReadonlyArray<{ id: string; email: string; first: string; last: string; company?: string }>,
): string {
  const lines = ['client_id,email,first_name,last_name,company'];
  for (const row of rows) lines.push([row.id, row.email, row.first, row.last, row.company ?? ''].join(','));
  return `${lines.join('\n')}\n`;
}

export function people(
  count: number,
  prefix = 'u',
): Array<{ id: string; email: string; first: string; last: string }> {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i + 1}`,
    email: `${prefix}${i + 1}@example.org`,
    first: `First${i + 1}`,
    last: `Last${i + 1}`,
  }));
}

export function jobYaml(name: string, steps: string, extra = ''): string {
  return `name: ${name}\nrate: { per_second: 1000, concurrency: 8 }\n${extra}steps:\n${steps}`;
}

/** A users mapping of a CSV's four columns, by their names: params to add go below it. */
export const USERS_MAPPING = [
  'version: 1',
  'intents:',
  '  - kind: user',
  '    params:',
  '      client_id: client_id',
  '      email: email',
  '      first_name: first_name',
  '      last_name: last_name',
  '',
].join('\n');

/** A users mapping that also sends a password: the secret the ledger must never store. */
export const PASSWORD_USERS_MAPPING = `${USERS_MAPPING}      password: password\n`;
