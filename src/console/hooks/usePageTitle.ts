import { useEffect, useRef } from 'preact/hooks';

/**
 * Names the page in the tab's title and moves focus to its heading when a view opens, so a
 * screen reader says where a link led (the console changes views without loading a page).
 */
export const usePageTitle = (title: string) => {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · presets console`;
  }, [title]);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return heading;
};
