import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ChatKind = 'direct' | 'group';

/** A chat of a sandbox session (WAHA sessions list their chats live from the provider). */
@Entity('web_session_chats')
export class WebSessionChatEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  sessionId: string;

  /** 0-based order inside the session; the paging key. */
  @Column({ type: 'int' })
  position: number;

  @Column({ type: 'varchar', length: 200 })
  chatId: string;

  @Column({ type: 'varchar', length: 10 })
  kind: ChatKind;

  @Column({ type: 'varchar', length: 300 })
  title: string;

  @Column({ type: 'varchar', length: 32, nullable: true })
  phoneNumber: string | null;
}
