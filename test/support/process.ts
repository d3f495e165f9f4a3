/** The real service as a child process: shared with the crash test (scripts/serviceProcess.ts). */
export * from '../../scripts/serviceProcess';
