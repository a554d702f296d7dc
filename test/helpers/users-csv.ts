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
