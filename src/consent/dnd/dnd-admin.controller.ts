import { Controller, Get, HttpCode, Put, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminOnly } from '../../auth/decorators';
import { ApiError } from '../../common/errors';
import { ApiErrors, ApiStreamedBody, ApiSuccess } from '../../common/openapi';
import { DndImportResult, DndImportService, DndStateView } from './dnd-import.service';
import { DND_IMPORT_EXAMPLE, DND_LIST_EXAMPLE, DndImport, DndList } from './dto/dnd.response';

const CSV_TYPES = new Set(['text/csv', 'text/plain']);

/** The platform's do-not-disturb list (operator API): import it, see what is in force. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/dnd')
export class DndAdminController {
  constructor(private readonly dnd: DndImportService) {}

  @Get()
  @ApiOperation({
    operationId: 'adminGetDndList',
    summary: 'The do-not-disturb list in force: its size and when it was imported',
  })
  @ApiSuccess(200, DndList, { description: 'The list in force', example: { success: true, data: DND_LIST_EXAMPLE } })
  async get(): Promise<{ success: true; data: DndStateView }> {
    return { success: true, data: await this.dnd.state() };
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'adminImportDndList',
    summary: "Replace the platform's do-not-disturb list with a CSV (streamed)",
    description:
      'The body is CSV (`text/csv` or `text/plain`, no size limit, streamed): one phone number a line (the first column ' +
      'of each line; an optional header line without digits), E.164 or national in DEFAULT_REGION, normalised like a ' +
      "message's `to`. Invalid lines are counted (the first ten listed) and skipped; a body with no valid number is 400 " +
      'and changes nothing. The new list replaces the old one at once when the body is complete (a send sees the old ' +
      'list or the new one, never a mix); the old numbers are deleted afterwards. A marketing message to a listed number ' +
      'is refused RECIPIENT_OPTED_OUT for every account; transactional messages and verification codes are not. Of two ' +
      'overlapping imports the one started later wins: the other answers 409 CONFLICT and is not applied. A failed or ' +
      'interrupted import leaves the list in force as it was.',
  })
  @ApiConsumes('text/csv', 'text/plain')
  @ApiBody({
    schema: { type: 'string' },
    examples: {
      csv: { summary: 'A header and three numbers', value: 'number\n+966501234567\n966501234568\n0501234569\n' },
    },
  })
  @ApiSuccess(200, DndImport, {
    description: 'The new list, in force',
    example: { success: true, data: DND_IMPORT_EXAMPLE },
  })
  @ApiStreamedBody()
  @ApiErrors('VALIDATION_ERROR', 'INVALID_REQUEST_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'CONFLICT')
  async import(@Req() req: Request): Promise<{ success: true; data: DndImportResult }> {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!CSV_TYPES.has(type)) {
      req.resume();
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The body must be CSV: Content-Type text/csv (or text/plain)');
    }
    return { success: true, data: await this.dnd.import(req, () => req.complete) };
  }
}
