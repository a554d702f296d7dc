import { z } from 'zod';
import type { ScheduleClock } from './schedule-clock.js';
import {
  scheduleRecord,
  sessionProblem,
  type ScheduleRecord,
  type ScheduleRecordProblem,
} from './schedule-records.js';
import { idString, linkColumns, normalizeText, splitFullName, type ScheduleLink } from './schedule-text.js';

const id = z.union([z.string(), z.number()]);
const text = z.string().nullish();
const answers = z
  .array(
    z.looseObject({
      questionId: id.nullish(),
      answerValue: z.union([z.string(), z.number(), z.boolean()]).nullish(),
    }),
  )
  .nullish();

/** A speaker question that holds the company, when the organisers asked one. */
const COMPANY_QUESTION = /company|organi[sz]ation|employer|affiliation/i;

/** The parts of Sessionize's API v2 `All` export that we read; everything else is ignored. */
export const sessionizeAllSchema = z.looseObject({
  sessions: z.array(
    z.looseObject({
      id,
      title: text,
      description: text,
      startsAt: text,
      endsAt: text,
      isServiceSession: z.boolean().nullish(),
      speakers: z.array(id).nullish(),
      categoryItems: z.array(id).nullish(),
      roomId: id.nullish(),
      liveUrl: text,
      questionAnswers: answers,
    }),
  ),
  speakers: z
    .array(
      z.looseObject({
        id,
        firstName: text,
        lastName: text,
        fullName: text,
        bio: text,
        tagLine: text,
        profilePicture: text,
        email: text,
        links: z.array(z.looseObject({ title: text, url: text, linkType: text })).nullish(),
        sessions: z.array(id).nullish(),
        questionAnswers: answers,
      }),
    )
    .default([]),
  questions: z.array(z.looseObject({ id, question: text })).default([]),
  categories: z
    .array(z.looseObject({ id, title: text, items: z.array(z.looseObject({ id, name: text })).default([]) }))
    .default([]),
  rooms: z.array(z.looseObject({ id, name: text })).default([]),
});
export type SessionizeAll = z.infer<typeof sessionizeAllSchema>;

type AnyScheduleRecord =
  ScheduleRecord<'session'> | ScheduleRecord<'speaker'> | ScheduleRecord<'speaker_link'>;

/** Which session column a Sessionize category feeds, from the category's title. */
function columnOfCategory(title: string): 'track' | 'level' | 'language' | 'format' | 'tags' {
  const lower = title.toLowerCase();
  if (lower.includes('track')) return 'track';
  if (lower.includes('level')) return 'level';
  if (lower.includes('language')) return 'language';
  if (lower.includes('format') || lower.includes('type')) return 'format';
  return 'tags';
}

/**
 * Sessions, then speakers, then the speaker links (from both sides, each pair once). A
 * session whose time cannot be read is a problem in its place, without its links.
 */
export function sessionizeRecords(
  all: SessionizeAll,
  clock: ScheduleClock,
): Array<AnyScheduleRecord | ScheduleRecordProblem> {
  const rooms = new Map(all.rooms.map((room) => [idString(room.id), normalizeText(room.name)]));
  const categoryItems = new Map<string, { column: ReturnType<typeof columnOfCategory>; name: string }>();
  for (const category of all.categories) {
    const column = columnOfCategory(normalizeText(category.title));
    for (const item of category.items)
      categoryItems.set(idString(item.id), { column, name: normalizeText(item.name) });
  }

  const questions = new Map(
    all.questions.map((question) => [idString(question.id), normalizeText(question.question)]),
  );
  const answersOf = (list: z.infer<typeof answers>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const answer of list ?? []) {
      const question =
        questions.get(idString(answer.questionId)) || `question ${idString(answer.questionId)}`;
      out[question] = normalizeText(answer.answerValue);
    }
    return out;
  };

  const links = new Map<string, { session_id: string; speaker_id: string; position: number }>();
  const addLink = (sessionId: string, speakerId: string, position: number): void => {
    const key = `${sessionId}\u0000${speakerId}`;
    if (!links.has(key)) links.set(key, { session_id: sessionId, speaker_id: speakerId, position });
  };

  const leftOut = new Set<string>();
  const sessions = all.sessions.map((session) => {
    const sessionId = idString(session.id);
    let start, end;
    try {
      start = session.startsAt ? clock.resolve(session.startsAt, `session ${sessionId} startsAt`) : undefined;
      end = session.endsAt ? clock.resolve(session.endsAt, `session ${sessionId} endsAt`) : undefined;
    } catch (error) {
      leftOut.add(sessionId);
      return sessionProblem(error, (session.speakers ?? []).length, normalizeText(session.title));
    }
    const columns: Record<string, string[]> = { track: [], level: [], language: [], format: [], tags: [] };
    for (const item of session.categoryItems ?? []) {
      const found = categoryItems.get(idString(item));
      if (found !== undefined && found.name !== '') columns[found.column]!.push(found.name);
    }
    const speakerIds = (session.speakers ?? []).map(idString);
    speakerIds.forEach((speakerId, index) => addLink(sessionId, speakerId, index + 1));
    return scheduleRecord('session', {
      id: sessionId,
      title: normalizeText(session.title),
      description: normalizeText(session.description),
      start: start?.iso,
      end: end?.iso,
      duration_minutes: start && end ? String(Math.round((end.epochMs - start.epochMs) / 60_000)) : undefined,
      timezone: start?.zoned || end?.zoned ? clock.zone : undefined,
      room:
        session.roomId === null || session.roomId === undefined ? '' : rooms.get(idString(session.roomId)),
      track: columns.track!.join(', '),
      level: columns.level!.join(', '),
      language: columns.language!.join(', '),
      format: columns.format!.join(', '),
      tags: columns.tags!.join(', '),
      is_service_session: session.isServiceSession === true ? 'true' : 'false',
      url: normalizeText(session.liveUrl),
      speaker_ids: speakerIds.join(','),
      answers: JSON.stringify(answersOf(session.questionAnswers)),
    });
  });

  const speakers = all.speakers.map((speaker) => {
    const speakerId = idString(speaker.id);
    const sessionIds = (speaker.sessions ?? []).map(idString);
    for (const sessionId of sessionIds) addLink(sessionId, speakerId, 1);
    const speakerLinks: ScheduleLink[] = (speaker.links ?? []).map((link) => ({
      title: normalizeText(link.title),
      url: normalizeText(link.url),
      type: normalizeText(link.linkType),
    }));
    const fullName =
      normalizeText(speaker.fullName) ||
      `${normalizeText(speaker.firstName)} ${normalizeText(speaker.lastName)}`.trim();
    const split = splitFullName(fullName);
    const speakerAnswers = answersOf(speaker.questionAnswers);
    const company = Object.entries(speakerAnswers).find(([question]) => COMPANY_QUESTION.test(question))?.[1];
    return scheduleRecord('speaker', {
      id: speakerId,
      first_name: normalizeText(speaker.firstName) || split.first,
      last_name: normalizeText(speaker.lastName) || split.last,
      full_name: fullName,
      email: normalizeText(speaker.email),
      bio: normalizeText(speaker.bio),
      tagline: normalizeText(speaker.tagLine),
      photo_url: normalizeText(speaker.profilePicture),
      ...linkColumns(speakerLinks),
      links: JSON.stringify(speakerLinks),
      company,
      session_ids: sessionIds.join(','),
      answers: JSON.stringify(speakerAnswers),
    });
  });

  const speakerLinks = [...links.values()]
    .filter((link) => !leftOut.has(link.session_id))
    .map((link) =>
      scheduleRecord('speaker_link', { ...link, role: 'speaker', position: String(link.position) }),
    );
  return [...sessions, ...speakers, ...speakerLinks];
}
