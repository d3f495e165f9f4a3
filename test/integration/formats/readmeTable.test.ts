import { readFileSync } from 'fs';
import { join } from 'path';
import { renderFieldTable } from '../../../src/formats/persistedFields';

// The README documents which request fields a preset keeps; it must show the table the code uses.
it('README.md contains the persisted-fields table verbatim', () => {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  expect(readme).toContain(renderFieldTable());
});
