import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthContext, CurrentAuth } from '../auth/auth-context';
import { RequirePermissions } from '../auth/decorators';
import { ApiErrors, ApiFileSuccess, ApiStreamedBody, ApiSuccess } from '../common/openapi';
import { requestIdOf } from '../common/request-id';
import { ExportSuppressionsQuery, SuppressionImport } from './dto/suppressions.dto';
import { SuppressionsExport } from './suppressions-export.service';
import { SuppressionsImportService } from './suppressions-import.service';

const CSV_FORMAT =
  "RFC 4180, UTF-8, CRLF, one header row; a cell starting with = + - @, tab or CR gets a leading `'` (a phone number is left as it is)";

@ApiTags('suppressions')
@Controller('api/v2/suppressions')
export class SuppressionsCsvController {
  constructor(
    private readonly importer: SuppressionsImportService,
    private readonly exporter: SuppressionsExport,
  ) {}

  @Post('import')
  @HttpCode(200)
  @RequirePermissions('messages:create')
  @ApiOperation({
    operationId: 'importSuppressions',
    summary: 'Add recipients to the suppression list from a CSV file (all or nothing, idempotent)',
    description:
      'The body is a CSV file (`Content-Type: text/csv`, UTF-8, streamed), header row first. Columns: `recipient` ' +
      '(required; normalised like `to`), `channel` (default `all`), `scope` (default `marketing`); the other columns ' +
      'of the export (`reason`, `source`, `createdAt`) are ignored, so an export imports as it is, and any other ' +
      'column is refused. Entries get reason `import` and the calling key as source; an entry that exists keeps its ' +
      'reason and source and takes the scope of the file, as with `addSuppressions`. Every row is checked before ' +
      'anything is written: one bad row is 400 VALIDATION_ERROR with nothing imported, its message naming the first ' +
      'bad lines (the header is line 1) and `errors` listing up to 100 as `{ line, message }`. More data rows than ' +
      'SUPPRESSION_IMPORT_MAX_ROWS (100,000 by default) is 413 PAYLOAD_TOO_LARGE, answered at once.',
  })
  @ApiConsumes('text/csv')
  @ApiBody({
    required: true,
    schema: {
      type: 'string',
      example: 'recipient,channel,scope\r\n+966501234567,all,marketing\r\nsomeone@example.com,email,all\r\n',
    },
  })
  @ApiStreamedBody()
  @ApiSuccess(200, SuppressionImport, {
    description: 'What the file added.',
    example: { success: true, data: { rows: 3, total: 2, imported: 1, alreadyPresent: 1 } },
  })
  @ApiErrors('VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE')
  async import(
    @CurrentAuth() auth: AuthContext,
    @Req() req: Request,
  ): Promise<{ success: true; data: SuppressionImport }> {
    return { success: true, data: await this.importer.import(auth.accountId, auth.keyId, req) };
  }

  @Get('export')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'exportSuppressions',
    summary: 'The suppression list as a CSV file',
    description:
      'Every entry matching the filters of `listSuppressions` (`recipient`, `channel`, `reason`), oldest first, ' +
      `streamed. ${CSV_FORMAT}. Columns: recipient, channel, scope, reason, source, createdAt (ISO 8601). Entries ` +
      'whose recipient was erased (only its hash is kept, and still enforced) are left out. An error after the first ' +
      'byte ends the connection early (no error body).',
  })
  @ApiFileSuccess(200, {
    description: 'The entries as CSV',
    mediaType: 'text/csv',
    example:
      'recipient,channel,scope,reason,source,createdAt\r\n' +
      '+966501234567,all,marketing,import,key_01m7y90kewyw5pyx06wnaqb2,2026-11-28T18:00:00.000Z\r\n',
    headers: {
      'Content-Disposition': {
        description: '`attachment; filename="suppressions.csv"`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  exportCsv(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ExportSuppressionsQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): void {
    // A bad filter is the JSON 400, before any CSV header or byte.
    const filter = this.exporter.filter(q);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="suppressions.csv"');
    if (req.method === 'HEAD') return void res.end();
    this.exporter.writeCsv(auth.accountId, filter, res, requestIdOf(req));
  }
}
