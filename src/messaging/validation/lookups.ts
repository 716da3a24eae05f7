import type { TemplateRoute } from '../../providers/provider.types';
import type { TemplateForSend } from '../../templates/template.types';

/** What the validator needs from other modules (bound in MessagingModule to their exported services). */
export interface SenderLookup {
  findApprovedByName(accountId: string, name: string): Promise<{ id: string; name: string } | null>;
  findDefaultApproved(accountId: string): Promise<{ id: string; name: string } | null>;
}

export interface TemplateLookup {
  findForSend(accountId: string, templateId: string): Promise<TemplateForSend | null>;
}

/** What the provider gateway needs (same binding as TEMPLATE_LOOKUP). */
export interface TemplateRouteLookup {
  /** The number the template goes out from, read at the provider call; null when not visible. */
  routeForSend(accountId: string, templateId: string): Promise<TemplateRoute | null>;
}

export interface SessionLookup {
  /** Throws ApiError NOT_FOUND / SESSION_NOT_READY. `kind`: `web` session or messaging `bot` id. */
  findForSend(accountId: string, sessionName: string): Promise<{ name: string; status: string; kind: string }>;
}

export const SENDER_LOOKUP = Symbol('SENDER_LOOKUP');
export const TEMPLATE_LOOKUP = Symbol('TEMPLATE_LOOKUP');
export const SESSION_LOOKUP = Symbol('SESSION_LOOKUP');
