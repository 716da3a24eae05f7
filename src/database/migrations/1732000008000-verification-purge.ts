import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndex } from '../migration-helpers';

// Owned by verification: indexes for the purge of expired codes and idle send windows.
export class VerificationPurge1732000008000 implements MigrationInterface {
  name = 'VerificationPurge1732000008000';

  async up(qr: QueryRunner): Promise<void> {
    await createIndex(qr, 'verifications', { name: 'ix_verifications_expires', columnNames: ['expires_at'] });
    await createIndex(qr, 'verification_send_windows', {
      name: 'ix_verification_windows_started',
      columnNames: ['window_started_at'],
    });
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('verification_send_windows', 'ix_verification_windows_started');
    await qr.dropIndex('verifications', 'ix_verifications_expires');
  }
}
