import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppConfig } from '../config/app-config';
import { UnitOfWork } from '../database/unit-of-work';
import { AccountsService } from './accounts.service';

export interface DemoAccount {
  accountId: string;
  key: string;
  /** Where the key was also written (mode 0600), or null when there is no data directory. */
  keyFile: string | null;
}

/**
 * `npm start` on a fresh machine: an empty embedded database outside production gets a demo account.
 * Its owner key is printed once (main.ts prints it last) and kept in `data/demo-api-key.txt`, so it
 * survives the terminal's scrollback.
 */
@Injectable()
export class DemoAccountBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoAccount');
  /** Set once when a demo account was created in this start; read by main.ts. */
  created: DemoAccount | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly uow: UnitOfWork,
  ) {}

  /** The key file of an earlier start, if it is still there (main.ts points to it). */
  existingKeyFile(): string | null {
    const file = this.config.demo.keyFile;
    return file !== null && existsSync(file) ? file : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.demo.enabled || this.config.isProduction || !this.uow.capabilities.embedded) return;
    if ((await this.accounts.countAll()) > 0) return;
    const { account, apiKey } = await this.accounts.create({
      name: 'Demo account',
      walletBalance: 10_000,
      freeMessages: 100,
      planName: 'Demo',
      messageQuota: 1000,
    });
    const keyFile = this.config.demo.keyFile;
    if (keyFile !== null) writeSecretFile(keyFile, `${apiKey.key}\n`);
    this.created = { accountId: account.id, key: apiKey.key, keyFile };
    this.logger.log(`Demo account ${account.id} created`);
  }
}

/**
 * Written fresh with mode 0600: a file left by an earlier database (maybe with wider permissions) is
 * removed first, since `mode` only applies when the file is created.
 */
function writeSecretFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
}
