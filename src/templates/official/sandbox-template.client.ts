import { randomBytes } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { countPlaceholders } from '../template-rules';
import {
  OfficialTemplateClient,
  OfficialTemplateReceipt,
  OfficialTemplateSubmission,
  ProviderTemplateRecord,
} from './official-template-client';
import type { ProviderReviewStatus } from './provider-template-status';
import { SandboxOfficialTemplateEntity } from './sandbox-official-template.entity';

export interface SandboxTemplateRegistration {
  wabaId: string | null;
  name: string;
  language: string;
  status: ProviderReviewStatus;
  variableCount: number;
}

/**
 * Default official client. Accepts every submission as `pending` (review is then done with the admin
 * route POST /admin/v1/templates/:id/status) and keeps a registry of the templates it knows per
 * business account (`sandbox_official_templates`, shared by replicas), so a manual link is looked up
 * as the real provider would. Status polls say "unknown": the admin review route is the sandbox's
 * reviewer.
 */
export class SandboxTemplateClient extends OfficialTemplateClient {
  readonly name = 'sandbox';

  constructor(
    private readonly registry: Repository<SandboxOfficialTemplateEntity>,
    private readonly clock: Clock,
  ) {
    super();
  }

  async submit(s: OfficialTemplateSubmission): Promise<OfficialTemplateReceipt> {
    const variableCount = countPlaceholders(s.body ?? '', 'body', false);
    const id = await this.register({
      wabaId: s.wabaId,
      name: s.name,
      language: s.language,
      status: 'pending',
      variableCount,
    });
    return { providerTemplateId: id, status: 'pending' };
  }

  /** Operator route: a template created at the provider outside this service (its console). */
  async register(r: SandboxTemplateRegistration): Promise<string> {
    const id = `sbxtpl_${randomBytes(8).toString('hex')}`;
    await this.registry.insert({ id, ...r, createdAt: this.clock.now() });
    return id;
  }

  async lookup(providerTemplateId: string, wabaId: string | null): Promise<ProviderTemplateRecord | null> {
    const found = await this.registry.findOne({ where: { id: providerTemplateId, wabaId: wabaId ?? IsNull() } });
    return found
      ? {
          providerTemplateId: found.id,
          name: found.name,
          language: found.language,
          status: found.status,
          variableCount: found.variableCount,
        }
      : null;
  }

  async fetchStatus(): Promise<null> {
    return null;
  }
}
