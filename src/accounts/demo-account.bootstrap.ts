import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AccountsService } from './accounts.service';

/**
 * `npm start` on a fresh machine: an empty embedded database outside production gets a demo account,
 * and its owner key is printed once (main.ts prints it after the URL).
 */
@Injectable()
export class DemoAccountBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoAccount');
  /** Set once when a demo account was created in this start; read by main.ts. */
  createdKey: string | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly accounts: AccountsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.demoAccount || this.config.isProduction || this.config.database.type !== 'sqlite') return;
    if ((await this.accounts.count()) > 0) return;
    const { account, apiKey } = await this.accounts.create({
      name: 'Demo account',
      walletBalance: 10_000,
      freeMessages: 100,
      planName: 'Demo',
      messageQuota: 1000,
    });
    this.createdKey = apiKey.key;
    this.logger.log(`Demo account ${account.id} created`);
  }
}
