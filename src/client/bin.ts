#!/usr/bin/env node
import { runCli } from './cli';

/** `npx presets …`: the command of docs/prompts-as-code.md, with this process's arguments, environment and terminal. */
void runCli({
  argv: process.argv.slice(2),
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
  fetch: globalThis.fetch,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`presets: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
