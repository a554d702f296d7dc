/**
 * Several Prometheus text expositions as one (docs/metrics.md): the worker's `/metrics` and
 * the dashboard's join the process's registry with BullMQ's export of every queue it
 * serves, and each of those exports writes its own `# HELP` and `# TYPE` lines. The text
 * format allows one of each per metric, before its samples, and a family's samples
 * together (a second `TYPE` for `bullmq_job_count` is an error to `promtool check metrics`
 * and to expfmt-based scrapers). So each family is written once, where it first appeared,
 * with every text's samples of it.
 */
export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, { help?: string; type?: string; samples: string[] }>();
  const familyOf = (name: string) => {
    let family = families.get(name);
    if (family === undefined) {
      family = { samples: [] };
      families.set(name, family);
    }
    return family;
  };
  for (const text of texts) {
    // A sample belongs to the family declared last in its own text when it bears that
    // family's name (a histogram's `_bucket`, `_sum`, `_count`); otherwise to its own.
    let declared: string | undefined;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const comment = /^#\s*(HELP|TYPE)\s+(\S+)/.exec(line);
      if (comment !== null) {
        const [, what, name] = comment as unknown as [string, 'HELP' | 'TYPE', string];
        declared = name;
        const family = familyOf(name);
        if (what === 'HELP') family.help ??= line;
        else family.type ??= line;
        continue;
      }
      if (line.startsWith('#')) continue;
      const name = /^[^{\s]+/.exec(line)?.[0] ?? line;
      const owner = declared !== undefined && ofFamily(name, declared) ? declared : name;
      familyOf(owner).samples.push(line);
    }
  }
  const lines: string[] = [];
  for (const family of families.values()) {
    if (family.help !== undefined) lines.push(family.help);
    if (family.type !== undefined) lines.push(family.type);
    lines.push(...family.samples);
  }
  return `${lines.join('\n')}\n`;
}

/** Sample names a family's TYPE covers: its own, and a histogram's or summary's parts. */
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

function ofFamily(name: string, family: string): boolean {
  return name === family || (name.startsWith(family) && SUFFIXES.includes(name.slice(family.length)));
}
