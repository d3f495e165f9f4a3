const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A moment as the reader's locale writes it; the exact ISO time is in `datetime` and the tooltip. */
export const Time = ({ iso }: { iso: string }) => (
  <time dateTime={iso} title={iso}>
    {format.format(new Date(iso))}
  </time>
);
