import { useSyncExternalStore } from 'react';

// Credentials live in sessionStorage only: they end with the tab and are never written to
// localStorage or cookies. Sign-out removes them.
const API_KEY = 'console.apiKey';
const ADMIN_TOKEN = 'console.adminToken';
// Test mode: a test owner key the console created for the signed-in owner, and whether it is in use.
const TEST_KEY = 'console.testKey';
const TEST_MODE = 'console.testMode';
const TEST_PREFIX = 'msk_test_';

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

/** A key the user signed in with that is itself a test key: the console stays in test mode. */
export const isTestKey = (key: string | null): boolean => !!key && key.startsWith(TEST_PREFIX);

export const session = {
  apiKey: (): string | null => read(API_KEY),
  adminToken: (): string | null => read(ADMIN_TOKEN),
  signIn: (key: string): void => write(API_KEY, key),
  signOut: (): void => {
    window.sessionStorage.removeItem(TEST_KEY);
    window.sessionStorage.removeItem(TEST_MODE);
    write(API_KEY, null);
  },
  testKey: (): string | null => read(TEST_KEY),
  /** Switches to test mode with `testKey` (kept for the tab, like the signed-in key). */
  enterTestMode: (testKey: string): void => {
    window.sessionStorage.setItem(TEST_KEY, testKey);
    write(TEST_MODE, '1');
  },
  leaveTestMode: (): void => write(TEST_MODE, null),
  /** The key the pages call the API with: the test key in test mode, else the signed-in key. */
  activeKey: (): string | null => {
    const key = read(API_KEY);
    if (!key || isTestKey(key)) return key;
    return read(TEST_MODE) && read(TEST_KEY) ? read(TEST_KEY) : key;
  },
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

/** The key pages use (the test key in test mode); re-renders when it changes. */
export function useActiveKey(): string | null {
  return useSyncExternalStore(subscribe, session.activeKey);
}

export function useAdminToken(): string | null {
  return useSyncExternalStore(subscribe, session.adminToken);
}
