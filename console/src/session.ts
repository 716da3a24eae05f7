import { useSyncExternalStore } from 'react';

// Credentials live in sessionStorage only: they end with the tab and are never written to
// localStorage or cookies. Sign-out removes them.
const API_KEY = 'console.apiKey';
const ADMIN_TOKEN = 'console.adminToken';

const listeners = new Set<() => void>();
const emit = (): void => listeners.forEach((l) => l());

function read(name: string): string | null {
  return window.sessionStorage.getItem(name);
}

function write(name: string, value: string | null): void {
  if (value === null) window.sessionStorage.removeItem(name);
  else window.sessionStorage.setItem(name, value);
  emit();
}

export const session = {
  apiKey: (): string | null => read(API_KEY),
  adminToken: (): string | null => read(ADMIN_TOKEN),
  signIn: (key: string): void => write(API_KEY, key),
  signOut: (): void => write(API_KEY, null),
  operatorSignIn: (token: string): void => write(ADMIN_TOKEN, token),
  operatorSignOut: (): void => write(ADMIN_TOKEN, null),
};

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The signed-in API key (null when signed out); re-renders on sign-in and sign-out. */
export function useApiKey(): string | null {
  return useSyncExternalStore(subscribe, session.apiKey);
}

export function useAdminToken(): string | null {
  return useSyncExternalStore(subscribe, session.adminToken);
}
