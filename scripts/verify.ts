/** `npm run verify [-- --strict]`: see projections/verify.ts and docs/rebuild-verify.md. */
import { runScript } from '../projections/cliSupport';
import { main } from '../projections/verify';

runScript(main);
