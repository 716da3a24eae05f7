import { Body, Controller, Get, HttpCode, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth } from '../../auth/auth-context';
import { OwnerOnly, RequirePermissions } from '../../auth/decorators';
import { ApiErrors, ApiSuccess } from '../../common/openapi';
import { KeywordSettingsView, UpdateKeywordSettingsDto } from './dto/keyword-settings.dto';
import { DEFAULT_KEYWORDS } from './keyword-matcher';
import { DEFAULT_KEYWORD_SETTINGS, type KeywordSettings } from './keyword-settings.types';
import { KeywordSettingsService } from './keyword-settings.service';

const view = (s: KeywordSettings): KeywordSettingsView => ({
  ...s,
  defaultKeywords: DEFAULT_KEYWORDS.map(({ word, kind }) => ({ word, kind })),
});
const EXAMPLE = { success: true, data: view(DEFAULT_KEYWORD_SETTINGS) };

@ApiTags('account')
@Controller('api/v2/account/keywords')
export class KeywordSettingsController {
  constructor(private readonly settings: KeywordSettingsService) {}

  @Get()
  @RequirePermissions('messages:read')
  @ApiOperation({
    operationId: 'getKeywordSettings',
    summary: 'Inbound keywords: the defaults, the account’s own keywords, the HELP text and confirmation replies',
  })
  @ApiSuccess(200, KeywordSettingsView, { description: 'The keyword settings', example: EXAMPLE })
  async get(@CurrentAuth() auth: AuthContext): Promise<{ success: true; data: KeywordSettingsView }> {
    return { success: true, data: view(await this.settings.get(auth.accountId)) };
  }

  @Patch()
  @HttpCode(200)
  @OwnerOnly()
  @ApiOperation({
    operationId: 'updateKeywordSettings',
    summary: 'Change the account’s own keywords, HELP text or confirmation replies (owner key only)',
  })
  @ApiSuccess(200, KeywordSettingsView, { description: 'The keyword settings now', example: EXAMPLE })
  @ApiErrors('VALIDATION_ERROR')
  async update(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: UpdateKeywordSettingsDto,
  ): Promise<{ success: true; data: KeywordSettingsView }> {
    return { success: true, data: view(await this.settings.update(auth.accountId, dto)) };
  }
}
