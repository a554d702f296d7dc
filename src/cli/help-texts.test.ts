import { describe, expect, it } from 'vitest';
import { buildProgram } from './main.js';

const program = await buildProgram();

// Help in one voice and the user's words (issue #30 item 8): commands in sentences,
// options in short lowercase phrases, "rows" rather than the engine's "intents", and no
// section numbers of the spec a user has not read.
describe('the help texts', () => {
  it.each(program.commands.map((command) => [command.name(), command] as const))(
    '%s: a sentence in the user’s words',
    (_name, command) => {
      for (const text of [command.description(), command.summary()].filter((t) => t !== '')) {
        expect(text).toMatch(/^[A-Z].*\.$/s);
        expect(text).not.toMatch(/§|\bintents?\b/i);
      }
      for (const option of command.options) {
        expect(option.description, `${command.name()} ${option.long}`).toMatch(/^[a-z0-9"'(-]/);
        expect(option.description, `${command.name()} ${option.long}`).not.toMatch(/§|\bintents?\b/i);
      }
    },
  );

  it('says the program’s own options in the same voice', () => {
    for (const option of program.options) expect(option.description).toMatch(/^[a-z]/);
  });
});
