/** `npm run rebuild`: see projections/rebuild.ts and docs/rebuild-verify.md. */
import { runScript } from '../projections/cliSupport';
import { main } from '../projections/rebuild';

runScript(main);
