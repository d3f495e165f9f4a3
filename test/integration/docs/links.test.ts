/**
 * Every link in the README and under docs/ leads somewhere: a relative link names a file or folder
 * that exists, and a `#fragment` names a heading of the Markdown file it points into (the same file
 * when the link is only a fragment), by GitHub's own anchor rules: github-slugger, the package
 * GitHub's rules are published as, with a repeated heading's anchor suffixed `-1`, `-2`, ….
 * Markdown is read by markdown-it (CommonMark), so a `#` in a code block is no heading and a
 * `[x](y)` in code is no link. Links to other sites are not followed. A link out of the repository
 * may only go to the `shared/` folder the team keeps beside it (the specification), and is checked
 * when that folder is there; a fresh clone on its own has none.
 *
 * Reads only the repository's own Markdown and asks whether paths exist: no write, thread or process.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import type GithubSlugger from 'github-slugger' with { 'resolution-mode': 'import' };
import MarkdownIt from 'markdown-it';

const ROOT = resolve(__dirname, '..', '..', '..');
const SHARED = resolve(ROOT, '..', 'shared');

const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<typeof markdown.parse>[number];

// github-slugger is published as ES modules only and this file runs as CommonJS: jest compiles the
// package to CommonJS (jest.config.js), so it is required, typed by its own declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { default: Slugger } = require('github-slugger') as { default: typeof GithubSlugger };

/** The anchors GitHub gives a Markdown file's headings, in order, duplicates suffixed. */
const anchorsOf = (source: string): Set<string> => {
  const slugger = new Slugger();
  const anchors = new Set<string>();
  const tokens = markdown.parse(source, {});
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    // GitHub slugs the heading's text as shown: code spans' text included, markup left out.
    const text = (tokens[i + 1]?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('');
    anchors.add(slugger.slug(text));
  });
  return anchors;
};

interface Link {
  line: number;
  target: string;
}

/** Every link and image of a Markdown file, with the (1-based) line it is on. */
const linksOf = (source: string): Link[] => {
  const lines = source.split('\n');
  const links: Link[] = [];
  const visit = (children: Token[], map: [number, number] | null): void => {
    for (const child of children) {
      const attribute = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
      if (attribute !== null) {
        const target = String(attribute);
        const [start, end] = map ?? [0, lines.length];
        // markdown-it gives the block's lines; the link's own line is the first that holds it.
        const found = lines.slice(start, end).findIndex((line) => line.includes(`](${target}`) || line.includes(target));
        links.push({ line: start + 1 + Math.max(found, 0), target });
      }
      if (child.children) visit(child.children, map);
    }
  };
  for (const token of markdown.parse(source, {})) if (token.type === 'inline') visit(token.children ?? [], token.map);
  return links;
};

interface Files {
  /** The text of a Markdown file, by absolute path; undefined when it is not there. */
  read(path: string): string | undefined;
  exists(path: string): boolean;
}

/** The links of `file` (absolute) that lead nowhere, as `file:line: target: why`. */
const brokenLinks = (file: string, files: Files, root = ROOT, shared = SHARED): string[] => {
  const source = files.read(file) ?? '';
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (path: string): Set<string> => {
    if (!anchors.has(path)) anchors.set(path, anchorsOf(files.read(path) ?? ''));
    return anchors.get(path)!;
  };
  const problems: string[] = [];
  for (const { line, target } of linksOf(source)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // another site, mail
    const hash = target.indexOf('#');
    const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const path = pathPart === '' ? file : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(file), pathPart);
    const at = `${relative(root, file)}:${line}: ${target}`;
    const inside = (folder: string): boolean => path === folder || path.startsWith(folder + sep);
    if (!inside(root)) {
      if (!inside(shared)) problems.push(`${at}: leaves the repository`);
      else if (files.exists(shared) && !files.exists(path)) problems.push(`${at}: no such file`);
      continue;
    }
    if (!files.exists(path)) {
      problems.push(`${at}: no such file`);
      continue;
    }
    if (fragment !== undefined && extname(path) === '.md' && !anchorsIn(path).has(fragment)) {
      problems.push(`${at}: no heading #${fragment} in ${relative(root, path)}`);
    }
  }
  return problems;
};

const markdownUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(folder, name))
    .sort();

const disk: Files = {
  read: (path) => (existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : undefined),
  exists: (path) => existsSync(path),
};

describe('the link check itself', () => {
  const at = (path: string): string => join(ROOT, path);
  const inMemory = (pages: Record<string, string>, others: string[] = []): Files => ({
    read: (path) => pages[relative(ROOT, path)],
    exists: (path) => relative(ROOT, path) in pages || others.includes(relative(ROOT, path)),
  });

  it("anchors headings as GitHub does: lower case, punctuation out, code's text in, repeats -1, -2", () => {
    const anchors = anchorsOf(
      [
        '# presets',
        '## In a gateway: `presets/client`',
        '## Events (auditors and analytics)',
        '## Notes',
        '### Notes',
        '## Notes',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual(['presets', 'in-a-gateway-presetsclient', 'events-auditors-and-analytics', 'notes', 'notes-1', 'notes-2']);
  });

  it('names the file, the line and the target of each link that leads nowhere', () => {
    const pages = {
      'README.md': [
        '# Title',
        '',
        'See [the API](docs/api.md#create-a-preset), [gone](docs/gone.md) and',
        '[here](#title), [nowhere](#nowhere), [a picture](docs/images/list.png),',
        '[a site](https://example.com/x#y), [the spec](../shared/spec/presets-api.md),',
        '[outside](../elsewhere/file.md) and [twice](docs/api.md#create-a-preset-1).',
        '',
        '```md',
        '[not a link](missing.md)',
        '```',
      ].join('\n'),
      'docs/api.md': '# The API\n\n## Create a preset\n\nBack to [the README](../README.md#title).\n',
    };
    const files = inMemory(pages, ['docs/images/list.png']);
    expect(brokenLinks(at('README.md'), files)).toEqual([
      'README.md:3: docs/gone.md: no such file',
      'README.md:4: #nowhere: no heading #nowhere in README.md',
      'README.md:6: ../elsewhere/file.md: leaves the repository',
      'README.md:6: docs/api.md#create-a-preset-1: no heading #create-a-preset-1 in docs/api.md',
    ]);
    expect(brokenLinks(at('docs/api.md'), files)).toEqual([]);
  });
});

describe('the README and docs/', () => {
  const files = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))];

  it('are found, with links to check', () => {
    expect(files.map((file) => relative(ROOT, file))).toContain('docs/api.md');
    expect(linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(20);
  });

  it('are the manual: the README links to every page under docs/ and fits in one sitting (450 lines)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(linksOf(readme).map(({ target }) => resolve(ROOT, decodeURI(target.split('#')[0]!))));
    expect(files.filter((file) => !linked.has(file)).map((file) => relative(ROOT, file))).toEqual([
      relative(ROOT, join(ROOT, 'README.md')),
    ]);
    expect(readme.split('\n').length).toBeLessThanOrEqual(450);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s: every link leads to a file and heading that exist', (_, file) => {
    expect(brokenLinks(file, disk)).toEqual([]);
  });
});
