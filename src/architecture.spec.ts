import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

// The arrows between the top-level folders of src/: which folders each one may import (besides
// itself). Anything else is a wrong-way arrow. docs/architecture.md shows the same table, checked
// below. Files directly in src/ (main.ts, app.module.ts, bootstrap.ts) compose the app: they may
// import anything, and no folder may import them.
const INFRASTRUCTURE = ['common', 'config', 'database', 'logging'];
const SHARED = [...INFRASTRUCTURE, 'accounts', 'auth', 'metrics'];
const FEATURE = [...SHARED, 'messaging', 'providers', 'webhooks'];

const MAY_IMPORT: Record<string, readonly string[]> = {
  config: [],
  logging: ['config'],
  database: ['config'],
  common: ['config', 'database'],
  accounts: INFRASTRUCTURE,
  auth: [...INFRASTRUCTURE, 'accounts'],
  metrics: [...INFRASTRUCTURE, 'accounts', 'auth'],
  providers: SHARED,
  messaging: [...SHARED, 'providers'],
  // A feature, and the outbox the others write their events to: it imports no other feature.
  webhooks: [...SHARED, 'messaging', 'providers'],
  'account-api': FEATURE,
  admin: FEATURE,
  bulk: FEATURE,
  'chatapp-web': FEATURE,
  console: FEATURE,
  consent: FEATURE,
  fraud: FEATURE,
  health: FEATURE,
  privacy: FEATURE,
  senders: FEATURE,
  templates: FEATURE,
  verification: FEATURE,
  // Test-mode controls reach into the features they control (through their exported services).
  'test-mode': [...FEATURE, 'chatapp-web', 'senders', 'templates'],
};

const SRC = __dirname;
const ROOT = '(src)';

type Edges = Map<string, Map<string, string[]>>;

/** Every .ts file under `dir`, as a path relative to src/. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** The top-level folder a path relative to src/ lies in; ROOT for files directly in src/. */
function folderOf(path: string): string {
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0] : ROOT;
}

/** Folder -> imported folder -> the imports that make the arrow (`file: specifier`), type-only ones included. */
function folderEdges(files: { path: string; text: string }[]): Edges {
  const edges: Edges = new Map();
  for (const { path, text } of files) {
    const from = folderOf(path);
    // Static imports and re-exports, `import type`, dynamic import() and require().
    for (const { fileName } of preProcessFile(text, true, true).importedFiles) {
      const target = fileName.startsWith('.')
        ? relative(SRC, resolve(SRC, dirname(path), fileName))
        : fileName.startsWith('src/')
          ? fileName.slice(4)
          : null;
      if (target === null) continue;
      if (target.startsWith('..')) throw new Error(`${path} imports ${fileName}, outside src/`);
      const to = folderOf(target);
      if (to === from) continue;
      const byTarget = edges.get(from) ?? new Map<string, string[]>();
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${path}: ${fileName}`]);
      edges.set(from, byTarget);
    }
  }
  return edges;
}

/** The imports that go against the table (a folder missing from it may import nothing). */
function wrongArrows(edges: Edges, table: Record<string, readonly string[]>): string[] {
  const wrong: string[] = [];
  for (const [from, byTarget] of edges) {
    if (from === ROOT) continue;
    for (const [to, imports] of byTarget) {
      if (!(table[from] ?? []).includes(to)) wrong.push(...imports.map((i) => `${i} (${from} -> ${to})`));
    }
  }
  return wrong;
}

/** One cycle between folders (`a -> b -> a`), or null when the arrows form none. */
function findCycle(arrows: Map<string, Iterable<string>>): string[] | null {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | null => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return null;
    for (const next of arrows.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return null;
  };
  for (const node of arrows.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return null;
}

/** The table in docs/architecture.md between its `arrows` markers: each row names folders and what they may import. */
function documentedTable(markdown: string): Record<string, string[]> {
  const section = /<!-- arrows:start -->([\s\S]*?)<!-- arrows:end -->/.exec(markdown);
  if (!section) throw new Error('docs/architecture.md has no <!-- arrows:start --> ... <!-- arrows:end --> table');
  const table: Record<string, string[]> = {};
  for (const line of section[1].split('\n')) {
    const cells = line.split('|').slice(1, -1);
    if (cells.length !== 2 || !cells[0].includes('`')) continue;
    const names = (cell: string) => [...cell.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
    for (const folder of names(cells[0])) table[folder] = names(cells[1]).sort();
  }
  return table;
}

describe('architecture: the arrows between the folders of src/', () => {
  const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(join(SRC, path), 'utf8') }));
  const edges = folderEdges(files);

  it('places every top-level folder of src/ in the table', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('has no import that goes against the table', () => {
    expect(wrongArrows(edges, MAY_IMPORT)).toEqual([]);
  });

  it('has no cycle between folders, in the code or in the table', () => {
    const code = new Map(
      [...edges].filter(([from]) => from !== ROOT).map(([from, byTarget]) => [from, [...byTarget.keys()]]),
    );
    expect(findCycle(code)).toBeNull();
    expect(findCycle(new Map(Object.entries(MAY_IMPORT)))).toBeNull();
  });

  it('docs/architecture.md shows the same table', () => {
    const documented = documentedTable(readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8'));
    const expected = Object.fromEntries(Object.entries(MAY_IMPORT).map(([folder, may]) => [folder, [...may].sort()]));
    expect(documented).toEqual(expected);
  });

  describe('the checks themselves', () => {
    const table = { low: [], high: ['low'] };
    const sample = (path: string, text: string) => ({ path: join(...path.split('/')), text });

    it('report an import against the arrows, naming the file and the import', () => {
      const found = folderEdges([
        sample('low/a.ts', "import { B } from '../high/b';"),
        sample('high/b.ts', "import type { A } from '../low/a';"),
      ]);
      expect(wrongArrows(found, table)).toEqual([`${join('low', 'a.ts')}: ../high/b (low -> high)`]);
    });

    it('see dynamic imports, re-exports and imports of the composition root', () => {
      const found = folderEdges([
        sample('high/c.ts', "export { A } from '../low/a'; const m = () => import('../app.module');"),
        sample('low/d.ts', "const x = require('../high/c');"),
      ]);
      expect(wrongArrows(found, table)).toEqual([
        `${join('high', 'c.ts')}: ../app.module (high -> ${ROOT})`,
        `${join('low', 'd.ts')}: ../high/c (low -> high)`,
      ]);
    });

    it('find a cycle', () => {
      expect(
        findCycle(
          new Map([
            ['a', ['b']],
            ['b', ['c']],
            ['c', ['a']],
          ]),
        ),
      ).toEqual(['a', 'b', 'c', 'a']);
      expect(
        findCycle(
          new Map([
            ['a', ['b']],
            ['b', []],
          ]),
        ),
      ).toBeNull();
    });
  });
});
