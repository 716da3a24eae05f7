import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../../accounts/account-mode';
import { AppConfig } from '../../config/app-config';
import type { WebSessionEntity } from '../entities/web-session.entity';
import type { WebSessionProviderName } from '../web-session.types';
import { SandboxWebSessionProvider } from './sandbox-web-session.provider';
import { WahaWebSessionProvider } from './waha-web-session.provider';
import type { WebSessionProvider } from './web-session-provider';
import type { AccountId } from '../../common/account-id';

/**
 * The provider that serves a session, and the one a new session gets. The provider registry's rule
 * holds here too: every session of an account's test mode is the sandbox's, whatever was asked or
 * CHATAPP_WEB_SESSION_PROVIDER says, so a test key never reaches WAHA.
 */
@Injectable()
export class WebSessionProviders {
  private readonly byName: Record<WebSessionProviderName, WebSessionProvider>;

  constructor(
    sandbox: SandboxWebSessionProvider,
    waha: WahaWebSessionProvider,
    private readonly config: AppConfig,
  ) {
    this.byName = { sandbox, waha };
  }

  /** The provider of a new session of `accountId`: the one asked for, else the configured default. */
  nameFor(accountId: AccountId, requested: WebSessionProviderName | undefined): WebSessionProviderName {
    if (!isLiveAccount(accountId)) return 'sandbox';
    return requested ?? this.config.webSessions.defaultProvider;
  }

  /** The provider serving `session`: the one stored on it, the sandbox for a session of a test mode. */
  forSession(session: Pick<WebSessionEntity, 'accountId' | 'provider'>): WebSessionProvider {
    return this.byName[isLiveAccount(session.accountId) ? session.provider : 'sandbox'];
  }
}
