import type { ApiFailure } from '../api/client';

/** A failed call, as a message read out at once by screen readers, with a 400's problems listed. */
export const Failure = ({ failure }: { failure: ApiFailure | undefined }) => {
  if (!failure) return null;
  const problems = failure.problems;
  return (
    <div role="alert" class="failure">
      <p>{failure.message}</p>
      {problems.length > 0 && (
        <ul>
          {problems.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};
