import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as ts from 'typescript';

const root = join(__dirname, '..', '..');
// Where the generated files seem to live, so `openapi-fetch` resolves from the repository's
// node_modules; they are only ever held in memory.
const dir = join(root, 'test', 'contract', '.default-client');
// openapi-typescript is an ES module jest cannot load: it runs in a child node, document in, types out.
const GENERATE = `import openapiTS, { astToString } from 'openapi-typescript';
let input = '';
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(astToString(await openapiTS(JSON.parse(input))));`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface ObjectSchema {
  required?: string[];
  properties?: Record<string, Json>;
}

/**
 * What an integrator gets who generates a client from a served document with openapi-typescript's
 * default options (no transform, `defaultNonNullable` on) and calls it through openapi-fetch.
 * `docs` maps a module name (`publicApi`) to its document; `calls` is TypeScript that may use
 * `createClient` and `import type * as <name>` of each module. Next to `calls`, every property a
 * component schema leaves out of `required` is checked to be optional in the generated type.
 * Returns the compiler's errors (typechecked like `npm run typecheck`), each with its line.
 */
export function typecheckDefaultClients(docs: Record<string, unknown>, calls: string): string[] {
  const files = new Map<string, string>();
  const imports = [`import createClient from 'openapi-fetch';`];
  const checks = [`type Optional<T, K extends keyof T> = {} extends Pick<T, K> ? true : false;`];
  for (const [name, doc] of Object.entries(docs)) {
    const types = execFileSync(process.execPath, ['--input-type=module', '-e', GENERATE], {
      cwd: root,
      input: JSON.stringify(doc),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    files.set(join(dir, `${name}.d.ts`), types);
    imports.push(`import type * as ${name} from './${name}';`);
    const schemas = (doc as { components?: { schemas?: Record<string, ObjectSchema> } }).components?.schemas ?? {};
    for (const [schema, { required = [], properties = {} }] of Object.entries(schemas)) {
      const type = `${name}.components['schemas'][${JSON.stringify(schema)}]`;
      for (const property of Object.keys(properties).filter((p) => !required.includes(p)))
        checks.push(`export const optional${checks.length}: Optional<${type}, ${JSON.stringify(property)}> = true;`);
    }
  }
  const program = join(dir, 'calls.ts');
  files.set(program, [...imports, calls, ...checks].join('\n'));

  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const { fileExists, directoryExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists(f);
  host.directoryExists = (d) => d === dir || (directoryExists?.(d) ?? true);
  host.readFile = (f) => files.get(f) ?? readFile(f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = files.get(f);
    return text === undefined ? getSourceFile(f, language, ...rest) : ts.createSourceFile(f, text, language);
  };
  return ts.getPreEmitDiagnostics(ts.createProgram([program], options, host)).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0];
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const source = d.file.text.split('\n')[line].trim();
    return `${d.file.fileName.slice(root.length + 1)}:${line + 1}: ${message} (${source})`;
  });
}
