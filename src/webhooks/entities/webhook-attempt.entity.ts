import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';

/** What happened on one POST of a delivery. (delivery_id, attempt_no) is unique. */
@Entity('webhook_attempts')
export class WebhookAttemptEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  deliveryId: string;

  @Column({ type: 'int' })
  attemptNo: number;

  @EpochMsColumn()
  startedAt: number;

  @Column({ type: 'int' })
  durationMs: number;

  @Column({ type: 'int', nullable: true })
  httpStatus: number | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  @Column({ type: 'boolean' })
  success: boolean;
}
