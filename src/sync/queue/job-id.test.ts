import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobIdFor } from './job-id.js';

/** What BullMQ accepts as a custom job id (bullmq `Job.validateOptions`). */
function bullmqAccepts(id: string): boolean {
  return `${parseInt(id, 10)}` !== id && !id.includes(':');
}

const anyText = fc.string({ unit: 'grapheme', maxLength: 80 });
const awkwardKey = fc.oneof(
  anyText,
  fc.string({ unit: fc.constantFrom(':', ' ', '.', '0', '9', 'é', '\u0000', '/'), maxLength: 20 }),
  fc.nat().map(String),
);

describe('jobIdFor', () => {
  it('reads as run, kind, a readable start of the key, and a hash', () => {
    expect(jobIdFor('20261122-014512-7f3a', 'user', 'ada@example.com')).toMatch(
      /^20261122-014512-7f3a\.user\.ada_example_com\.[A-Za-z0-9_-]{22}$/,
    );
  });

  it('turns keys BullMQ would refuse into ids it takes', () => {
    for (const key of ['12345', 'a:b:c', 'x:y', '', ' ', 'Zoë Müller', '日本語', '0']) {
      const id = jobIdFor('run', 'user', key);
      expect(bullmqAccepts(id), id).toBe(true);
      expect(id).toMatch(/^[A-Za-z0-9._-]+$/);
    }
  });

  it('gives ids BullMQ accepts, short and of safe characters, for any values', () => {
    fc.assert(
      fc.property(anyText, anyText, awkwardKey, (runId, kind, key) => {
        const id = jobIdFor(runId, kind, key);
        expect(bullmqAccepts(id)).toBe(true);
        expect(id).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(id.length).toBeLessThanOrEqual(40 + 16 + 16 + 22 + 3);
      }),
    );
  });

  it('is the same for the same run, kind and key, in every process and version', () => {
    // Workers and commands of different releases dedupe by these ids: they must never drift.
    expect(jobIdFor('20261122-014512-7f3a', 'user', '42')).toBe(
      '20261122-014512-7f3a.user.42.qv6yTmY7-ajFisWZv98YKK',
    );
    expect(jobIdFor('r', 'user', 'Zoë: Müller')).toBe('r.user.Zo___M_ller.ZcGwKpkTng81Ua_4tY8zsB');
  });

  it('keeps different intents apart, also when their readable parts look alike', () => {
    expect(jobIdFor('r', 'user', 'a:b')).not.toBe(jobIdFor('r', 'user', 'a_b'));
    expect(jobIdFor('r', 'user', 'é')).not.toBe(jobIdFor('r', 'user', 'è'));
    expect(jobIdFor('r', 'user', `${'x'.repeat(16)}1`)).not.toBe(jobIdFor('r', 'user', `${'x'.repeat(16)}2`));
    expect(jobIdFor('a.b', 'c', 'd')).not.toBe(jobIdFor('a', 'b.c', 'd'));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(anyText, fc.constantFrom('user', 'event', 'rsvp'), awkwardKey), {
          selector: (triple) => JSON.stringify(triple),
          maxLength: 200,
        }),
        (triples) => {
          const ids = new Set(triples.map(([runId, kind, key]) => jobIdFor(runId, kind, key)));
          expect(ids.size).toBe(triples.length);
        },
      ),
    );
  });
});
