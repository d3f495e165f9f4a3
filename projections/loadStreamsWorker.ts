import { parentPort, workerData } from 'node:worker_threads';
import { openEventStore } from '../src/backends';
import type { Config } from '../src/config';
import { PRESET_STREAM_PREFIX } from '../src/presets/streamName';
import { cliLogger, errorMessage } from './cliSupport';
import { foldStreams } from './foldStreams';
import { ENCODERS, IN_FLIGHT, type Encoding } from './loadStreams';

/** A rebuild worker (loadStreams.ts): folds one share of the streams, sends what to write, waits when too far ahead. */
const { config, until, share, encoding, pageSize } = workerData as {
  config: Config; until: bigint; share: { index: number; count: number }; encoding: Encoding; pageSize: number;
};
const port = parentPort!;
let unanswered = 0;
let wake = () => {};
port.on('message', () => {
  unanswered--;
  wake();
});

const run = async () => {
  const eventStore = openEventStore(config, cliLogger(config), { readOnly: true });
  try {
    const encode = ENCODERS[encoding];
    const pages = eventStore.readStreams({ until, streamPrefix: PRESET_STREAM_PREFIX, pageSize, share });
    return await foldStreams(pages, async (changes, events) => {
      while (unanswered >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
      unanswered++;
      port.postMessage({ payload: encode(changes), events });
    });
  } finally {
    await eventStore.close();
  }
};

run().then(
  (done) => port.postMessage({ done }),
  (error: unknown) => port.postMessage({ failed: errorMessage(error) }),
);
