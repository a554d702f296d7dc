/** Text as exported, with CRLF and lone CR made `\n` and outer whitespace trimmed. */
export function normalizeText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/\r\n?/g, '\n').trim();
}

/** Ids arrive as strings in one list and integers in another: always compare strings. */
export function idString(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return typeof value === 'string' ? value.trim() : '';
}

/** `Ada King Lovelace` → first `Ada King`, last `Lovelace`; one word is a first name. */
export function splitFullName(fullName: string): { first: string; last: string } {
  const words = fullName.trim().split(/\s+/).filter(Boolean);
  if (words.length <= 1) return { first: words[0] ?? '', last: '' };
  return { first: words.slice(0, -1).join(' '), last: words.at(-1)! };
}

/** `01:30`, `1:30:00` or `90` → minutes. */
export function durationMinutes(value: string | number | null | undefined): number | undefined {
  const text = normalizeText(value);
  if (/^\d+$/.test(text)) return Number(text);
  const match = /^(\d+):(\d{2})(?::(\d{2}))?$/.exec(text);
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2]);
}

export interface ScheduleLink {
  title: string;
  url: string;
  type: string;
}

/** Well-known link columns picked from a speaker's links by type or host. */
export function linkColumns(
  links: readonly ScheduleLink[],
): Record<'website' | 'twitter' | 'linkedin' | 'blog', string> {
  const find = (test: (link: ScheduleLink) => boolean): string => links.find(test)?.url ?? '';
  const kind = (link: ScheduleLink): string => `${link.type} ${link.title}`.toLowerCase();
  return {
    twitter: find(
      (link) => /twitter|\bx\b/.test(kind(link)) || /\/\/(www\.)?(twitter|x)\.com\//.test(link.url),
    ),
    linkedin: find((link) => kind(link).includes('linkedin') || link.url.includes('linkedin.com/')),
    blog: find((link) => kind(link).includes('blog')),
    website: find((link) => /website|homepage|company|personal/.test(kind(link))),
  };
}
