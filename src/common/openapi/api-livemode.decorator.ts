import { ApiProperty } from '@nestjs/swagger';

/**
 * `livemode` of a resource (test mode, issue 30): computed from the account that owns the row, so
 * every resource a test key (`msk_test_...`) reads or writes says false.
 */
export function ApiLivemode(): PropertyDecorator {
  return ApiProperty({ description: 'False for data of test mode (a test key, msk_test_...).', example: true });
}
