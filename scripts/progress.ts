import { SingleBar } from 'cli-progress';

/**
 * Progress of a long pass over the events: a bar on a terminal, a plain line every ~2 s otherwise
 * (logs, CI). The total is not known in advance (the event store only tells the head position),
 * so it is estimated from how far through the position range the pass is: exact on SQLite, whose
 * positions are consecutive row ids, close enough on EventStoreDB.
 */
export interface Progress {
  /** `events` done so far: the first at `first`, the last at `position`. */
  update(events: number, first: bigint, position: bigint): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  /** The position the pass ends at. */
  head: bigint;
  tty?: NodeJS.WriteStream;
  log: (line: string) => void;
  intervalMs?: number;
  now?: () => number;
}

export const createProgress = ({ label, head, tty, log, intervalMs = 2000, now = Date.now }: ProgressOptions): Progress => {
  const started = now();
  let lastLog = started;
  const estimateTotal = (events: number, first: bigint, position: bigint): number => {
    const span = Number(head - first) + 1;
    const done = Number(position - first) + 1;
    return done >= span ? events : Math.max(events, Math.round((events * span) / done));
  };
  const rate = (events: number) => Math.round(events / Math.max((now() - started) / 1000, 0.001));

  if (tty) {
    const bar = new SingleBar({
      stream: tty,
      hideCursor: true,
      fps: 5,
      etaBuffer: 50,
      format: `${label} {bar} {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}`,
    });
    bar.start(1, 0, { rate: 0 });
    return {
      update(events, first, position) {
        bar.setTotal(estimateTotal(events, first, position));
        bar.update(events, { rate: rate(events) });
      },
      stop: () => bar.stop(),
    };
  }
  return {
    update(events, first, position) {
      const t = now();
      if (t - lastLog < intervalMs) return;
      lastLog = t;
      const total = estimateTotal(events, first, position);
      const perSecond = rate(events);
      const eta = perSecond > 0 ? Math.ceil((total - events) / perSecond) : 0;
      log(`${label}: ${events}/${total} events (${Math.floor((100 * events) / Math.max(total, 1))}%), ${perSecond} events/s, ETA ${eta} s`);
    },
    stop() {},
  };
};
