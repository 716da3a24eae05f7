import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { RequirePermissions } from '../../auth/decorators';
import { ApiErrors, ApiFileSuccess } from '../../common/openapi';
import { requestIdOf } from '../../common/request-id';
import { ExportMessagesQuery } from '../dto/export.dto';
import { exportPeriod, MessageExport } from './message-export';

/** Registered before MessagesController: `export.csv` must not be read as a message id. */
@ApiTags('messages')
@Controller('api/v2/messages')
export class MessageExportController {
  constructor(private readonly exporter: MessageExport) {}

  @Get('export.csv')
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'exportMessages',
    summary: 'The message log of a period as a CSV file',
    description:
      'Every message created in [`from`, `to`), oldest first, streamed (keep what retention will delete). The same CSV ' +
      'as the bulk rows report: RFC 4180, UTF-8, CRLF, one header row; a cell starting with = + - @, tab or CR gets a ' +
      "leading `'` (a phone number is left as it is). An erased recipient shows as its hash. An error after the first " +
      'byte ends the connection early (no error body).',
  })
  @ApiFileSuccess(200, {
    description: 'The messages as CSV',
    mediaType: 'text/csv',
    example:
      'id,createdAt,to,channel,messageType,sender,templateId,status,cost,paidFrom,encoding,segments,errorCode,errorMessage,bulkJobId,rowIndex,scheduledAt,sentAt,deliveredAt,readAt,failedAt\r\n' +
      'msg_01jd8x2m0a1b2c3d4e5f6g7h,2026-11-01T10:15:02.000Z,+966501234567,local_sms,text,ACME,,delivered,5,wallet,gsm7,1,,,,,,2026-11-01T10:15:02.000Z,2026-11-01T10:15:04.000Z,,\r\n',
    headers: {
      'Content-Disposition': {
        description: '`attachment; filename="messages-<from>-<to>.csv"`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors('VALIDATION_ERROR')
  exportCsv(
    @CurrentAuth() auth: AuthContext,
    @Query() q: ExportMessagesQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): void {
    // A bad period is the JSON 400, before any CSV byte.
    const period = exportPeriod(q.from, q.to);
    const name = `messages-${new Date(period.from).toISOString()}-${new Date(period.to).toISOString()}.csv`.replace(
      /:/g,
      '',
    );
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    if (req.method === 'HEAD') return void res.end();
    this.exporter.writeCsv(auth.accountId, period, res, requestIdOf(req));
  }
}
