import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMapping } from '../../../src/mapping/load-mapping.js';
import { mapSource } from '../../../src/mapping/map-source.js';
import type { MappedItem } from '../../../src/mapping/mapped-item.js';
import { shippedMappingNames, shippedMappingsDir } from '../../../src/mapping/shipped-mappings.js';
import { openSource } from '../../../src/sources/open-source.js';
import { sourceConfigSchema } from '../../../src/sources/source-config.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/mappings');

/** Each shipped mapping and the sample export(s) it is tested on (test/fixtures/mappings/). */
const SAMPLES: Record<string, Array<{ kind: string; file: string; options?: Record<string, unknown> }>> = {
  users: [{ kind: 'csv', file: 'users.csv' }],
  events: [{ kind: 'csv', file: 'events.csv' }],
  speakers: [{ kind: 'csv', file: 'speakers.csv' }],
  schedules: [{ kind: 'csv', file: 'schedules.csv' }],
  rsvps: [{ kind: 'csv', file: 'rsvps.csv' }],
  contacts: [{ kind: 'csv', file: 'contacts.csv' }],
  check_ins: [{ kind: 'csv', file: 'check_ins.csv' }],
  eventbrite: [
    { kind: 'csv', file: 'eventbrite-us.csv' },
    { kind: 'csv', file: 'eventbrite-uk.csv' },
    { kind: 'csv', file: '../registration/eventbrite-uk-no-attendee-number.csv' },
  ],
  // The registration tools' exports (test/fixtures/registration/, with the e2e test).
  'pretix-checkin': [
    { kind: 'csv', file: '../registration/pretix-checkin.csv' },
    { kind: 'csv', file: '../registration/pretix-checkin-first-name.csv' },
    { kind: 'csv', file: '../registration/pretix-checkin-full-name.csv' },
  ],
  'pretix-orders': [{ kind: 'csv', file: '../registration/pretix-orders.csv' }],
  tito: [{ kind: 'csv', file: '../registration/tito.csv' }],
  luma: [{ kind: 'csv', file: '../registration/luma.csv' }],
  'indico-registrants': [{ kind: 'csv', file: '../registration/indico-registrants.csv' }],
  sessionize: [{ kind: 'sessionize', file: 'sessionize-all.json' }],
  pretalx: [
    { kind: 'pretalx', file: 'pretalx-democon.json' },
    { kind: 'pretalx', file: 'pretalx-rc3-excerpt.json' },
    { kind: 'pretalx', file: 'c3voc-hub-38c3-v2.json' },
    // A merged schedule: colliding ids, a talk in two slots, people sharing id 0, one id
    // with two names; the e-mails come from the organiser's speaker list.
    {
      kind: 'pretalx',
      file: 'c3voc-merged.json',
      options: {
        speakers: { csv: 'c3voc-merged-speakers.csv', id: 'Speaker ID', name: 'Name', email: 'E-Mail' },
      },
    },
  ],
  frab: [
    { kind: 'frab', file: 'frab-schedule.xml' },
    { kind: 'frab', file: 'frab-38c3-excerpt.xml' },
    { kind: 'frab', file: 'frab-camp2019-excerpt.json' },
  ],
};

/** What a golden file holds: every item, its row and what it became, without volatile paths. */
function golden(item: MappedItem): unknown {
  const at =
    item.origin.line === undefined
      ? `row ${item.origin.row}`
      : `row ${item.origin.row} line ${item.origin.line}`;
  switch (item.type) {
    case 'intents':
    case 'duplicate':
      return {
        at,
        type: item.type,
        ...(item.type === 'duplicate' ? { message: item.message } : {}),
        ...(item.warnings ? { warnings: item.warnings.map((warning) => warning.message) } : {}),
        ...(item.type === 'intents' && item.groupedRows !== undefined
          ? { groupedRows: item.groupedRows }
          : {}),
        intents: item.intents.map((intent) => ({
          kind: intent.kind,
          key: intent.key,
          op: intent.op,
          params: intent.params,
          dependsOn: intent.dependsOn,
        })),
      };
    case 'invalid':
      return { at, type: item.type, problems: item.problems };
    case 'skipped':
      return { at, type: item.type, reason: item.reason };
    case 'grouped':
      return { at, type: item.type, key: item.key };
  }
}

describe('shipped mappings: sample export → intents (golden files)', () => {
  it('every shipped mapping has a sample and a header comment naming the export it reads', () => {
    expect(shippedMappingNames().sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const name of shippedMappingNames()) {
      const text = readFileSync(join(shippedMappingsDir(), `${name}.yaml`), 'utf8');
      expect(text.split('\n').slice(0, 4).join('\n'), name).toMatch(/^# .*\n#\n# \S/);
    }
  });

  for (const [name, samples] of Object.entries(SAMPLES)) {
    for (const sample of samples) {
      it(`${name} ← ${sample.file}`, async () => {
        const mapping = await loadMapping(name);
        const config = sourceConfigSchema.parse({
          [sample.kind]: sample.options ? { path: sample.file, ...sample.options } : sample.file,
        });
        const items: unknown[] = [];
        for await (const item of mapSource(openSource(config, { baseDir: FIXTURES }), mapping))
          items.push(golden(item));
        await expect(`${JSON.stringify(items, null, 2)}\n`).toMatchFileSnapshot(
          `./golden/${name}--${sample.file.replace(/^.*\//, '').replace(/\.[^.]+$/, '')}.json`,
        );
      });
    }
  }
});
