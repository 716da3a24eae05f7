import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { OwnerOnly } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { AuditEventPage, ListAuditEventsQuery } from './dto/audit-event.dto';
import { AuditEventsService, AuditEventView } from './audit-events.service';

@ApiTags('privacy')
@OwnerOnly()
@Controller('api/v2/audit-events')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'Who changed what in this account, newest first',
    description:
      'API keys created and revoked, webhook settings and endpoints, the default sender, geo permissions, erasures, and ' +
      "the operator's changes to balance, plan and retention; each with its actor, time, request id and the change " +
      '(never a secret). Kept AUDIT_RETENTION_DAYS (a year by default). Owner key only.',
  })
  @ApiSuccess(200, AuditEventPage, {
    description: 'One page of events.',
    example: {
      success: true,
      data: {
        events: [
          {
            id: 'aud_01m7y90kewyw5pyx06wnaqb2',
            type: 'api_key.created',
            actor: 'key_01m7y90kewyw5pyx06wnaqb1',
            requestId: 'msgreq_1732800000000_0abc12d000001',
            target: 'key_01m7y90kewyw5pyx06wnaqb3',
            changes: { name: 'CI key', role: 'member', permissions: ['messages:read'] },
            createdAt: '2026-11-28T18:00:00.000Z',
            livemode: true,
          },
        ],
        nextCursor: null,
        hasMore: false,
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ListAuditEventsQuery,
  ): Promise<{ success: true; data: { events: AuditEventView[]; nextCursor: string | null; hasMore: boolean } }> {
    const page = await this.events.list(auth.accountId, q);
    return { success: true, data: { events: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore } };
  }
}
