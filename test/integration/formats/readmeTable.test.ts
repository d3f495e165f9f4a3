import { readFileSync } from 'fs';
import { join } from 'path';
import { renderFieldTable } from '#src/formats/persistedFields';

// docs/formats.md documents which request fields a preset keeps; it must show the table the code uses.
it('docs/formats.md contains the persisted-fields table verbatim', () => {
  const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'formats.md'), 'utf8');
  expect(page).toContain(renderFieldTable());
});
