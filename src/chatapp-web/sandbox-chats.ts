import type { ChatInput } from './web-session.types';

/**
 * 120 deterministic chats for a sandbox session created without `chats`: every third one is a
 * group (40 groups, 80 direct), so paging and the type filter can be exercised.
 */
export function generateSandboxChats(count = 120): ChatInput[] {
  const chats: ChatInput[] = [];
  for (let i = 1; i <= count; i++) {
    const n = String(i).padStart(4, '0');
    if (i % 3 === 0) {
      chats.push({ chatId: `12036300000${n}@g.us`, kind: 'group', title: `Sandbox group ${n}`, phoneNumber: null });
    } else {
      chats.push({
        chatId: `96650000${n}@c.us`,
        kind: 'direct',
        title: `Sandbox contact ${n}`,
        phoneNumber: `+96650000${n}`,
      });
    }
  }
  return chats;
}
