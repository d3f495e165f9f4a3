/** Prints the persisted-fields table as Markdown, for docs/formats.md: `npm run build && node dist/scripts/print-field-table.js`. */
import { renderFieldTable } from '../src/formats/persistedFields';

process.stdout.write(renderFieldTable());
