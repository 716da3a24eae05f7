import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { OfficialTemplateClient, OfficialTemplateReceipt, OfficialTemplateSubmission } from './official-template-client';

/**
 * Default official client: accepts every submission as `pending` (review is then done with the admin
 * route POST /admin/v1/templates/:id/status). Keeps nothing, so status polls say "unknown".
 */
@Injectable()
export class SandboxTemplateClient extends OfficialTemplateClient {
  readonly name = 'sandbox';

  async submit(_submission: OfficialTemplateSubmission): Promise<OfficialTemplateReceipt> {
    return { providerTemplateId: `sbxtpl_${randomBytes(8).toString('hex')}`, status: 'pending' };
  }

  async fetchStatus(): Promise<null> {
    return null;
  }
}
