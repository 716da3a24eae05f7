import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : f.endsWith('.md') ? [p] : [];
    });
  return [join(ROOT, 'README.md'), ...(existsSync(docs) ? walk(docs) : [])];
}

/** Prose only: fenced code blocks (where example hosts belong) and HTML comments removed, line numbers kept. */
function prose(text: string): string {
  const blank = (m: string) => m.replace(/[^\n]/g, '');
  return text.replace(/^```[\s\S]*?^```/gm, blank).replace(/<!--[\s\S]*?-->/g, blank);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .*$/gm) ?? [];
  return new Set(
    headings.map((h) =>
      h
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

interface Finding {
  where: string;
  problem: string;
}

function check(file: string): Finding[] {
  const findings: Finding[] = [];
  const lines = prose(readFileSync(file, 'utf8')).split('\n');
  const name = relative(ROOT, file);
  lines.forEach((line, i) => {
    const where = `${name}:${i + 1}`;
    // No address of another site in prose or links; code (fenced or inline: defaults such as
    // `https://api.telegram.org`, example hosts) may name one.
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/https?:\/\/[^\s)'"<>]+/g))
      findings.push({ where, problem: `external address ${m[0]}` });
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [path, anchor] = m[1].split('#');
      const target = path ? resolve(dirname(file), path) : file;
      if (/^[a-z]+:/i.test(m[1])) continue; // reported above when http(s); other schemes (mailto:) are not links into files
      if (relative(ROOT, target).startsWith('..'))
        findings.push({ where, problem: `link outside the repository: ${m[1]}` });
      else if (!existsSync(target)) findings.push({ where, problem: `link to a missing file: ${m[1]}` });
      else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor))
        findings.push({ where, problem: `no heading for #${anchor} in ${relative(ROOT, target)}` });
    }
    // A path written out (e.g. in backticks) that leaves the repository is a link outside it too.
    for (const m of line.matchAll(/(?<![.\w])(?:\.\.\/)+[\w./-]+/g)) {
      if (relative(ROOT, resolve(dirname(file), m[0])).startsWith('..'))
        findings.push({ where, problem: `path outside the repository: ${m[0]}` });
    }
  });
  return findings;
}

describe('README and docs/ links (no address outside the repository, every relative link resolves)', () => {
  it('the README links into docs/, and every link in README.md and docs/*.md stays inside the repository and resolves (file and heading)', () => {
    const files = markdownFiles();
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/api-guide.md', 'docs/operations.md', 'docs/architecture.md']),
    );
    expect(files.flatMap(check)).toEqual([]);
  });
});
