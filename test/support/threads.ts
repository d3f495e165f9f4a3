import { join } from 'node:path';

/**
 * Tests run the TypeScript source, where the service uses no threads (src/threads/thread.ts). A
 * test that wants a real thread names the compiled entry point, which the jest globalSetup builds
 * into dist/: `compiledEntry('src/eventstore/sqlite/writerWorker')`.
 */
export const compiledEntry = (pathFromRoot: string): string => join(__dirname, '..', '..', 'dist', `${pathFromRoot}.js`);
