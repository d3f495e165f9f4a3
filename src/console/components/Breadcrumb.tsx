import { Link } from 'wouter-preact';

/** Where a view sits: links to the views above it, then its own name (Pico styles the trail). */
export const Breadcrumb = ({ trail, current }: { trail: Array<{ href: string; label: string }>; current: string }) => (
  <nav aria-label="breadcrumb">
    <ul>
      {trail.map((step) => (
        <li key={step.href}>
          <Link href={step.href}>{step.label}</Link>
        </li>
      ))}
      <li aria-current="page">{current}</li>
    </ul>
  </nav>
);
