import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors';
import type { CreateTemplateDto } from '../dto/create-template.dto';
import type { TemplatePlan } from '../template-rules';
import { OfficialTemplateClient, OfficialTemplateReceipt, providerCall } from './official-template-client';
import type { ResolvedOfficialSender } from './official-senders.service';
import type { AccountId } from '../../common/account-id';

/** One text for an unknown id and for another business account's id: the answer tells nothing about other tenants. */
const NOT_FOUND = "providerTemplateId is not a template of this sender's business account at the provider";

/**
 * A manual link (`creationMode: manual_external_id`) is usable only for a template the provider
 * confirms in the sender's own business account, approved, under the same name (the Cloud API sends a
 * template by name + language within that account) and with the same variable count.
 */
@Injectable()
export class ManualLinkVerifier {
  constructor(private readonly official: OfficialTemplateClient) {}

  async verify(
    accountId: AccountId | null,
    dto: CreateTemplateDto,
    plan: TemplatePlan,
    sender: ResolvedOfficialSender,
  ): Promise<OfficialTemplateReceipt & { language: string }> {
    // The platform's business account holds every tenant's submitted templates: linking there would
    // hand one tenant another's template. Only the operator (default templates) links on it.
    if (accountId !== null && sender.platformAccount) {
      throw ApiError.validation(
        "creationMode manual_external_id needs one of this account's own official senders (officialSenderId); templates on the platform number are created through this API",
      );
    }
    const id = dto.providerTemplateId as string;
    const found = await providerCall(() => this.official.lookup(id, sender.wabaId, accountId));
    if (!found) throw ApiError.validation(NOT_FOUND);
    if (found.name !== dto.name)
      throw ApiError.validation(
        `name must be the provider's template name (${found.name}) for providerTemplateId ${id}`,
      );
    if (dto.language !== undefined && dto.language !== found.language) {
      throw ApiError.validation(
        `language must be the provider's template language (${found.language}) for providerTemplateId ${id}`,
      );
    }
    if (found.variableCount !== null && found.variableCount !== plan.variableCount) {
      throw ApiError.validation(
        `manualVariableCount (${plan.variableCount}) does not match the provider's template (${found.variableCount} body variables)`,
      );
    }
    if (found.status !== 'approved')
      throw ApiError.validation(`the provider's template ${id} is ${found.status}; link it once it is approved`);
    return { providerTemplateId: found.providerTemplateId, status: 'approved', language: found.language };
  }
}
