/** The note given with a change, quoted; a screen reader hears that it is one. */
export const Note = ({ text }: { text: string }) => (
  <blockquote class="note">
    <span class="visually-hidden">Note: </span>
    {text}
  </blockquote>
);
