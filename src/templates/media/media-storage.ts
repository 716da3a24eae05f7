import { Injectable } from '@nestjs/common';
import { createReadStream, mkdirSync } from 'node:fs';
import { copyFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { AppConfig } from '../../config/app-config';

/** Where header files live. Local disk by default; an object store can implement the same three calls. */
export abstract class MediaStorage {
  /** Takes ownership of `sourcePath` (moved, not copied, where possible). */
  abstract put(key: string, sourcePath: string): Promise<void>;
  abstract open(key: string): Promise<Readable | null>;
  abstract delete(key: string): Promise<void>;
}

/** Files under MEDIA_DIR (default data/media), fanned out by the first characters of the key. */
@Injectable()
export class LocalDiskMediaStorage extends MediaStorage {
  private readonly root: string;

  constructor(config: AppConfig) {
    super();
    this.root = config.media.dir;
    mkdirSync(this.root, { recursive: true });
  }

  async put(key: string, sourcePath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(sourcePath, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(sourcePath, target);
      await unlink(sourcePath);
    }
  }

  async open(key: string): Promise<Readable | null> {
    const path = this.pathOf(key);
    try {
      await stat(path);
    } catch {
      return null;
    }
    return createReadStream(path);
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch(() => undefined);
  }

  private pathOf(key: string): string {
    if (!/^[a-z0-9_]+$/.test(key)) throw new Error(`invalid media key ${key}`);
    return join(this.root, key.slice(-2), key);
  }
}
