import {
  AccessDeniedError,
  DeadlineExceededError,
  NO_STREAM,
  NotLeaderError,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  convertToCommandError,
} from '@eventstore/db-client';
import { ConcurrencyConflict, StoreUnavailable } from '#src/eventstore/eventStore';
import { isTransient, mapAppendError, mapStoreError, toExpectedRevision } from '#src/eventstore/eventstoredb/store';

// The client's own error classes, built as the client builds them (CommandError.js): with no
// gRPC ServiceError for those it creates itself, from a ServiceError-shaped error otherwise.
const serviceError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: undefined });

describe('EventStoreDB expected revision', () => {
  it('maps no_stream to the client’s NO_STREAM and passes a revision through', () => {
    expect(toExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toExpectedRevision(0n)).toBe(0n);
    expect(toExpectedRevision(41n)).toBe(41n);
  });
});

describe('EventStoreDB error mapping', () => {
  it('turns a wrong expected version into ConcurrencyConflict with the actual revision', () => {
    const error = new WrongExpectedVersionError(undefined, { streamName: 'preset-a', expected: 5n, current: 0n });
    const mapped = mapAppendError(error, 'preset-a', 5n);
    expect(mapped).toBeInstanceOf(ConcurrencyConflict);
    expect(mapped).toMatchObject({ stream: 'preset-a', expected: 5n, actual: 0n });
  });

  it('reports a stream that does not exist as actual no_stream', () => {
    const error = new WrongExpectedVersionError(undefined, { streamName: 'preset-b', expected: 0n, current: NO_STREAM });
    expect(mapAppendError(error, 'preset-b', 0n)).toMatchObject({ expected: 0n, actual: 'no_stream' });
  });

  it('turns unavailable, deadline and not-leader errors into StoreUnavailable', () => {
    for (const error of [
      new UnavailableError(),
      new DeadlineExceededError(),
      convertToCommandError(serviceError(14, 'UNAVAILABLE: No connection established')),
    ]) {
      expect(isTransient(error)).toBe(true);
      const mapped = mapAppendError(error, 's', 'no_stream');
      expect(mapped).toBeInstanceOf(StoreUnavailable);
      expect((mapped as StoreUnavailable).cause).toBe(error);
    }
    expect(convertToCommandError(serviceError(14, 'UNAVAILABLE'))).toBeInstanceOf(UnavailableError);
    expect(convertToCommandError(serviceError(4, 'DEADLINE_EXCEEDED'))).toBeInstanceOf(DeadlineExceededError);
    expect(isTransient(Object.create(NotLeaderError.prototype))).toBe(true);
    expect(mapStoreError(new Error('connect ECONNREFUSED 127.0.0.1:2113'))).toBeInstanceOf(StoreUnavailable);
  });

  it('leaves errors that are not outages as they are', () => {
    for (const error of [
      new StreamNotFoundError(undefined, 'preset-c'),
      new AccessDeniedError(),
      new UnknownError(),
      new TypeError('bug'),
    ]) {
      expect(isTransient(error)).toBe(false);
      expect(mapStoreError(error)).toBe(error);
    }
    expect(new StreamNotFoundError(undefined, 'preset-c').streamName).toBe('preset-c');
  });
});
