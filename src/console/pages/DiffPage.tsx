import { useLocation } from 'wouter-preact';
import type { ListPage, Version } from '../api/types';
import { Breadcrumb } from '../components/Breadcrumb';
import { ConfigDiff } from '../components/ConfigDiff';
import { Failure } from '../components/Failure';
import { PromptDiff } from '../components/PromptDiff';
import { useLoad } from '../hooks/useLoad';
import { usePageTitle } from '../hooks/usePageTitle';
import { useSession } from '../hooks/useSession';

/** Any two versions of a preset: the config as a structured JSON diff, the system prompt as a text diff. */
export const DiffPage = ({ slug, from, to }: { slug: string; from: number; to: number }) => {
  const { call } = useSession();
  const heading = usePageTitle(`${slug}: version ${from} → ${to}`);
  const [, navigate] = useLocation();
  const base = `/api/v1/presets/${encodeURIComponent(slug)}`;
  const pair = useLoad(
    async (signal) => {
      const [left, right] = await Promise.all(
        [from, to].map(async (n) => (await call<{ data: Version }>(`${base}/versions/${n}`, { signal })).body.data),
      );
      return { left: left!, right: right! };
    },
    [base, from, to],
  );
  const numbers = useLoad(
    async (signal) => {
      const page = (await call<ListPage<Version>>(`${base}/versions?limit=100`, { signal })).body;
      return page.total_count;
    },
    [base],
  );

  const choose = (nextFrom: number, nextTo: number) => navigate(`/presets/${encodeURIComponent(slug)}/diff/${nextFrom}/${nextTo}`);
  const count = numbers.data ?? Math.max(from, to);
  const options = Array.from({ length: count }, (_, i) => count - i);
  const leftName = `version ${from}`;
  const rightName = `version ${to}`;
  return (
    <>
      <Breadcrumb
        trail={[
          { href: '/', label: 'Presets' },
          { href: `/presets/${encodeURIComponent(slug)}`, label: slug },
        ]}
        current={`v${from} → v${to}`}
      />
      <h1 ref={heading} tabIndex={-1}>
        {slug}: version {from} → version {to}
      </h1>
      <form class="compare" onSubmit={(e) => e.preventDefault()}>
        <fieldset class="compare-row">
          <legend class="visually-hidden">Versions to compare</legend>
          <label for="diff-from">From version</label>
          <select id="diff-from" value={from} onChange={(e) => choose(Number(e.currentTarget.value), to)}>
            {options.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <label for="diff-to">to version</label>
          <select id="diff-to" value={to} onChange={(e) => choose(from, Number(e.currentTarget.value))}>
            {options.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <button type="button" class="secondary" onClick={() => choose(to, from)}>
            Swap
          </button>
        </fieldset>
      </form>
      <Failure failure={pair.error} />
      {pair.data && (
        <>
          <section aria-labelledby="config-diff-heading">
            <h2 id="config-diff-heading">Config</h2>
            <ConfigDiff left={pair.data.left.config} right={pair.data.right.config} leftName={leftName} rightName={rightName} />
          </section>
          <section aria-labelledby="prompt-diff-heading">
            <h2 id="prompt-diff-heading">System prompt</h2>
            <PromptDiff
              left={pair.data.left.system_prompt}
              right={pair.data.right.system_prompt}
              leftName={leftName}
              rightName={rightName}
            />
          </section>
        </>
      )}
    </>
  );
};
