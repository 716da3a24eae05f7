import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

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

// Every table's owning folder: only its files name the table (in SQL text, as a table argument, or by
// importing the entity for a repository); another folder goes through the owner's exported service.
// docs/architecture.md shows the same map, checked below. Migrations (database/migrations) are exempt.
const TABLES: Record<string, readonly string[]> = {
  accounts: ['accounts', 'api_keys'],
  messaging: ['messages', 'message_status_history', 'message_provider_refs', 'pending_receipts'],
  providers: ['sandbox_deliveries', 'sandbox_faults'],
  webhooks: ['webhook_endpoints', 'webhook_event_endpoints', 'webhook_deliveries', 'webhook_attempts'],
  bulk: ['bulk_jobs', 'bulk_rows'],
  'chatapp-web': ['web_sessions', 'web_session_chats', 'web_inbound_messages'],
  consent: ['suppressions', 'dnd_numbers', 'dnd_state', 'keyword_settings', 'compliance_settings'],
  fraud: ['geo_permissions', 'fraud_blocks', 'fraud_prefix_counters', 'verification_daily_counts'],
  privacy: ['audit_events', 'erasures', 'privacy_leases', 'usage_daily'],
  senders: ['sms_senders', 'inbound_sms', 'inbound_sms_parts'],
  templates: ['templates', 'template_media', 'official_senders', 'sandbox_official_templates'],
  verification: ['verifications', 'verification_send_windows'],
};

// Files that name a table of another folder, each with why it is not routed through the owner (none
// today). The check fails on an entry no longer needed, so an entry leaves with its last use.
const FOREIGN_TABLES_ALLOWED: { file: string; tables: readonly string[]; reason: string }[] = [];

// Calls whose string argument is a table name: TypeORM's query builder and repositories, and the
// statement helpers of database/ (a helper that takes a table name joins this list).
const TABLE_ARGUMENT_CALLS = new Set([
  'from',
  'into',
  'update',
  'innerJoin',
  'leftJoin',
  'innerJoinAndSelect',
  'leftJoinAndSelect',
  'getRepository',
  'updateFromRows',
  'updateFound',
  'insertOrAdd',
]);
// A table named in SQL text (string literals and the parts of template literals).
const SQL_NAMING = /\b(?:from|join|into|update|table)\s+[`"]?([a-z_]+)/gi;
const MIGRATIONS = 'database/migrations/';
// This spec: it holds the map and samples of what the checks find.
const SELF = 'architecture.spec.ts';

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
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      const target = importTarget(path, fileName);
      if (target === null) continue;
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

/** A path relative to src/ with `/` separators (the form the tables above use). */
function posix(path: string): string {
  return path.split(sep).join('/');
}

/** What an import specifier of `path` points at, relative to src/ and without extension; null outside the project. */
function importTarget(path: string, specifier: string): string | null {
  const target = specifier.startsWith('.')
    ? relative(SRC, resolve(SRC, dirname(path), specifier))
    : specifier.startsWith('src/')
      ? specifier.slice(4)
      : null;
  if (target !== null && target.startsWith('..')) throw new Error(`${path} imports ${specifier}, outside src/`);
  return target;
}

/** The source file an import specifier of `path` resolves to, among `known`; null for packages and non-.ts files. */
function importedFile(path: string, specifier: string, known: ReadonlySet<string>): string | null {
  const target = importTarget(path, specifier);
  if (target === null) return null;
  return [`${target}.ts`, join(target, 'index.ts'), target].find((f) => known.has(f)) ?? null;
}

/** File -> the files it imports (type-only imports, re-exports, import() and require() included). */
function fileEdges(files: { path: string; text: string }[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.path));
  return new Map(
    files.map(({ path, text }) => {
      const imported = ts
        .preProcessFile(text, true, true)
        .importedFiles.map((i) => importedFile(path, i.fileName, known));
      return [path, [...new Set(imported.filter((f): f is string => f !== null))]];
    }),
  );
}

/** A cycle as the report shows it: `a.ts -> b.ts -> a.ts`; null when there is none. */
function describeCycle(cycle: string[] | null): string | null {
  return cycle && cycle.map(posix).join(' -> ');
}

/** Table -> its owning folder; throws on a table with two owners. */
function ownersByTable(owners: Record<string, readonly string[]>): Map<string, string> {
  const byTable = new Map<string, string>();
  for (const [folder, tables] of Object.entries(owners)) {
    for (const table of tables) {
      const other = byTable.get(table);
      if (other !== undefined) throw new Error(`table ${table} has two owners: ${other} and ${folder}`);
      byTable.set(table, folder);
    }
  }
  return byTable;
}

/** Entity file (relative to src/, `/` separators) -> its table, from `@Entity('table')`. */
function entityTables(files: { path: string; text: string }[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const { path, text } of files) {
    if (posix(path) === SELF) continue;
    const entity = /@Entity\(\s*'([a-z_]+)'/.exec(text);
    if (entity) found.set(posix(path), entity[1]);
  }
  return found;
}

/** Whether an import or re-export brings in a value (an entity class for a repository), not only types. */
function importsValue(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return false;
    const clause = node.exportClause;
    return !clause || !ts.isNamedExports(clause) || clause.elements.some((e) => !e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return true; // `import './x'`: run for its effect
  if (clause.isTypeOnly) return false;
  if (clause.name) return true;
  const bindings = clause.namedBindings;
  return !bindings || ts.isNamespaceImport(bindings) || bindings.elements.some((e) => !e.isTypeOnly);
}

/** The tables a file names: in SQL text, as the argument of a table-taking call, or by importing an entity. */
function tablesNamed(path: string, text: string, tables: ReadonlySet<string>, entities: Map<string, string>): string[] {
  const named = new Set<string>();
  const known = new Set([...entities.keys()].map((f) => join(...f.split('/'))));
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const m of node.text.matchAll(SQL_NAMING)) if (tables.has(m[1])) named.add(m[1]);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : '';
      if (TABLE_ARGUMENT_CALLS.has(name)) {
        for (const arg of node.arguments) if (ts.isStringLiteralLike(arg) && tables.has(arg.text)) named.add(arg.text);
      }
    } else if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const specifier = node.moduleSpecifier;
      const file = ts.isStringLiteral(specifier) ? importedFile(path, specifier.text, known) : null;
      const table = file === null ? undefined : entities.get(posix(file));
      if (table !== undefined && importsValue(node)) named.add(table);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest));
  return [...named];
}

/** Each file's use of a table another folder owns, as `file: table (owner)`; migrations and this spec are exempt. */
function foreignTables(files: { path: string; text: string }[], owners: Record<string, readonly string[]>): string[] {
  const byTable = ownersByTable(owners);
  const tables = new Set(byTable.keys());
  const entities = entityTables(files);
  const foreign: string[] = [];
  for (const { path, text } of files) {
    const file = posix(path);
    if (file.startsWith(MIGRATIONS) || file === SELF) continue;
    for (const table of tablesNamed(path, text, tables, entities)) {
      const owner = byTable.get(table);
      if (owner !== folderOf(path)) foreign.push(`${file}: ${table} (${owner})`);
    }
  }
  return foreign.sort();
}

/** The uses of foreign tables the allow-list does not cover, and the allow-list's entries no use needs. */
function againstAllowList(
  foreign: string[],
  allowed: { file: string; tables: readonly string[] }[],
): { unlisted: string[]; unneeded: string[] } {
  const listed = allowed.flatMap(({ file, tables }) => tables.map((t) => `${file}: ${t}`));
  const used = foreign.map((f) => f.replace(/ \(.*\)$/, ''));
  return {
    unlisted: foreign.filter((_, i) => !listed.includes(used[i])),
    unneeded: listed.filter((l) => !used.includes(l)),
  };
}

/** The tables the migrations create. */
function migratedTables(files: { path: string; text: string }[]): string[] {
  return files
    .filter((f) => posix(f.path).startsWith(MIGRATIONS))
    .flatMap((f) => [...f.text.matchAll(/createTable\(\s*\w+,\s*\{\s*name:\s*'([a-z_]+)'/g)].map((m) => m[1]))
    .sort();
}

/**
 * The table in docs/architecture.md between its `<!-- name:start -->` and `<!-- name:end -->` markers: each row
 * names folders in its first cell and what they have (may import, own) in its second.
 */
function documentedTable(markdown: string, name: string): Record<string, string[]> {
  const section = new RegExp(`<!-- ${name}:start -->([\\s\\S]*?)<!-- ${name}:end -->`).exec(markdown);
  if (!section) throw new Error(`docs/architecture.md has no <!-- ${name}:start --> ... <!-- ${name}:end --> table`);
  const table: Record<string, string[]> = {};
  for (const line of section[1].split('\n')) {
    const cells = line.split('|').slice(1, -1);
    if (cells.length !== 2 || !cells[0].includes('`')) continue;
    const names = (cell: string) => [...cell.matchAll(/`([a-z_-]+)`/g)].map((m) => m[1]);
    for (const folder of names(cells[0])) table[folder] = names(cells[1]).sort();
  }
  return table;
}

/** A table of folders with its lists sorted, as documentedTable reads it. */
function sortedTable(table: Record<string, readonly string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(table).map(([folder, names]) => [folder, [...names].sort()]));
}

describe('architecture: the arrows between the folders of src/', () => {
  const files = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(join(SRC, path), 'utf8') }));
  const edges = folderEdges(files);
  const docs = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');

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

  it('has no cycle between files, type-only imports included', () => {
    expect(describeCycle(findCycle(fileEdges(files)))).toBeNull();
  });

  it('docs/architecture.md shows the same table', () => {
    expect(documentedTable(docs, 'arrows')).toEqual(sortedTable(MAY_IMPORT));
  });

  describe('the tables and their owners', () => {
    it('gives every table the migrations create exactly one owner, a folder of the arrows table', () => {
      expect(migratedTables(files)).toEqual([...ownersByTable(TABLES).keys()].sort());
      expect(Object.keys(TABLES).filter((folder) => !(folder in MAY_IMPORT))).toEqual([]);
    });

    it("keeps each entity in its table's owner", () => {
      const owners = ownersByTable(TABLES);
      const misplaced = [...entityTables(files)].filter(([file, table]) => owners.get(table) !== folderOf(file));
      expect(misplaced.map(([file, table]) => `${file}: ${table} (${owners.get(table)})`)).toEqual([]);
    });

    it('has no file that names a table of another folder, but those allowed', () => {
      const { unlisted, unneeded } = againstAllowList(foreignTables(files, TABLES), FOREIGN_TABLES_ALLOWED);
      expect(unlisted).toEqual([]);
      expect(unneeded).toEqual([]);
    });

    it('docs/architecture.md shows the same owners', () => {
      expect(documentedTable(docs, 'tables')).toEqual(sortedTable(TABLES));
    });
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

    it('find a cycle between files through a type-only import, and name its files', () => {
      const found = fileEdges([
        sample('low/a.ts', "import { type B } from './b';"),
        sample('low/b.ts', "import type { C } from '../high/c';"),
        sample('high/c.ts', "export { A } from '../low/a'; import { z } from 'zod';"),
        sample('high/d.ts', "import { A } from '../low/a';"),
      ]);
      expect(describeCycle(findCycle(found))).toBe('low/a.ts -> low/b.ts -> high/c.ts -> low/a.ts');
      found.set(join('low', 'b.ts'), []);
      expect(findCycle(found)).toBeNull();
    });

    it('find the tables a file of another folder names, in SQL, in table arguments and by entity', () => {
      const owners = { low: ['notes', 'note_tags'], high: ['jobs'] };
      const found = foreignTables(
        [
          sample('low/note.entity.ts', "@Entity('notes') export class NoteEntity {}"),
          sample('low/notes.repository.ts', "const q = 'SELECT id FROM notes JOIN note_tags t ON t.id = id';"),
          sample('high/jobs.repository.ts', 'const q = `UPDATE jobs SET n = 1 WHERE id IN (SELECT id FROM notes)`;'),
          sample('high/tags.ts', "qb.insert().into('note_tags'); updateFound(uow, 'jobs', set, where, 10);"),
          sample('high/reader.ts', "import { NoteEntity } from '../low/note.entity'; ds.getRepository(NoteEntity);"),
          sample('high/view.ts', "import type { NoteEntity } from '../low/note.entity'; @Get('notes') f() {}"),
          sample('high/words.ts', "const label = 'notes'; const s = `${n} notes from ${who}`;"),
          sample('database/migrations/1-notes.ts', "await qr.query('UPDATE notes SET n = 0');"),
        ],
        owners,
      );
      expect(found).toEqual([
        'high/jobs.repository.ts: notes (low)',
        'high/reader.ts: notes (low)',
        'high/tags.ts: note_tags (low)',
      ]);
      expect(againstAllowList(found, [{ file: 'high/tags.ts', tables: ['note_tags', 'notes'] }])).toEqual({
        unlisted: ['high/jobs.repository.ts: notes (low)', 'high/reader.ts: notes (low)'],
        unneeded: ['high/tags.ts: notes'],
      });
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
