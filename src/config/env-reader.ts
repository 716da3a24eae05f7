// Parses environment strings into typed values. A bad value is recorded (naming the variable) and
// the default stands in, so one start-up reports every problem at once instead of the first.

export type Env = Record<string, string | undefined>;

/** A configuration problem; its message names the variable(s), and stops start-up. */
export class ConfigError extends Error {}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  /** Records a problem; start-up fails once all sections are read. */
  fail(message: string): void {
    this.problems.push(message);
  }

  /** Throws one ConfigError listing every problem recorded, if any. */
  throwIfFailed(): void {
    if (this.problems.length) throw new ConfigError(this.problems.join('; '));
  }

  /** The raw value, or null when unset or empty. */
  optional(name: string): string | null {
    const v = this.env[name];
    return v === undefined || v === '' ? null : v;
  }

  /** The raw value (undefined when unset; an empty string stays ''). */
  raw(name: string): string | undefined {
    return this.env[name];
  }

  string(name: string, def: string): string {
    return this.optional(name) ?? def;
  }

  /** A setting the selected adapter cannot work without: `why` says what selected it (e.g. PROVIDER_EMAIL=smtp). */
  required(name: string, why: string): string {
    const v = this.optional(name);
    if (v === null) this.fail(`${name} is required when ${why}`);
    return v ?? '';
  }

  int(name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.optional(name);
    if (raw === null) return def;
    if (!/^-?\d+$/.test(raw.trim())) return this.failed(`${name} must be an integer, got "${raw}"`, def);
    const n = Number(raw);
    if (n < min || n > max) return this.failed(`${name} must be between ${min} and ${max}, got ${n}`, def);
    return n;
  }

  /** 1/true/yes/on or 0/false/no/off, any case. */
  bool(name: string, def: boolean): boolean {
    const raw = this.optional(name);
    if (raw === null) return def;
    const v = raw.trim().toLowerCase();
    if (TRUE.includes(v)) return true;
    if (FALSE.includes(v)) return false;
    return this.failed(`${name} must be true or false, got "${raw}"`, def);
  }

  /** Comma-separated TCP ports, e.g. "443,8443". */
  ports(name: string, def: number[]): number[] {
    const raw = this.optional(name);
    if (raw === null || raw.trim() === '') return def;
    const ports = raw.split(',').map((p) => p.trim());
    if (ports.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 65535)) {
      return this.failed(`${name} must be a comma-separated list of ports (1-65535), got "${raw}"`, def);
    }
    return ports.map(Number);
  }

  oneOf<T extends string>(name: string, values: readonly T[], def: T): T {
    const raw = this.optional(name) ?? def;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    const choices = values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`;
    return this.failed(`${name} must be ${choices}, got "${raw}"`, def);
  }

  /** A URL with one of `protocols`, without trailing slashes. */
  url(name: string, value: string, protocols: readonly string[]): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return this.failed(`${name} is not a valid URL: "${value}"`, value);
    }
    if (!protocols.includes(url.protocol.replace(/:$/, ''))) {
      return this.failed(`${name} must use ${protocols.join(' or ')}://, got "${value}"`, value);
    }
    return value.replace(/\/+$/, '');
  }

  /** Checks `value` (already read) against a pattern; `hint` completes "NAME must be ...". */
  matching(name: string, value: string, pattern: RegExp, hint: string): string {
    if (!pattern.test(value)) this.fail(`${name} must be ${hint}, got "${value}"`);
    return value;
  }

  private failed<T>(message: string, def: T): T {
    this.fail(message);
    return def;
  }
}
