import { Injectable } from '@nestjs/common';
import type { WebSessionProviderName } from '../web-session.types';
import { SandboxWebSessionProvider } from './sandbox-web-session.provider';
import { WahaWebSessionProvider } from './waha-web-session.provider';
import type { WebSessionProvider } from './web-session-provider';

/** The provider that serves a session, by the name stored on the session. */
@Injectable()
export class WebSessionProviders {
  private readonly byName: Record<WebSessionProviderName, WebSessionProvider>;

  constructor(sandbox: SandboxWebSessionProvider, waha: WahaWebSessionProvider) {
    this.byName = { sandbox, waha };
  }

  get(name: WebSessionProviderName): WebSessionProvider {
    return this.byName[name];
  }
}
