// The signed-in session: one SDK client per browser tab. The access token lives only in memory (the
// client's); the refresh token only in the service's httpOnly cookie, so a reload asks the service for a
// new access token through the cookie (`X-Svc-Refresh`). The site id is not a secret: it is remembered
// so the reload knows which site to ask for.
import { createSvcClient, SvcError, type SignedInUser, type SvcClient } from '@svc-cms/sdk';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';

const SITE_KEY = 'svc-studio.site';
const KNOWN_SITES_KEY = 'svc-studio.sites';

export interface Session {
  client: SvcClient;
  user: SignedInUser | null;
  site: string | null;
  /** Sites signed in to from this browser (ids only), for the site switcher. */
  knownSites: string[];
  restoring: boolean;
  /** Whether a user is signed in now (synchronous: the router asks before React re-renders). */
  isSignedIn(): boolean;
  signIn(site: string, email: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The client of a signed-in page (the router only renders those pages with a user). */
export function useClient(): SvcClient {
  return useSession().client;
}

function readKnownSites(): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KNOWN_SITES_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((site): site is string => typeof site === 'string').slice(0, 20) : [];
  } catch {
    return [];
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const client = useMemo(() => createSvcClient({ baseUrl: window.location.origin, refresh: 'cookie' }), []);
  const [user, setUserState] = useState<SignedInUser | null>(null);
  const userRef = useRef<SignedInUser | null>(null);
  const setUser = useCallback((next: SignedInUser | null) => {
    userRef.current = next;
    setUserState(next);
  }, []);
  const isSignedIn = useCallback(() => userRef.current !== null, []);
  const [site, setSite] = useState<string | null>(() => localStorage.getItem(SITE_KEY));
  const [knownSites, setKnownSites] = useState<string[]>(readKnownSites);
  const [restoring, setRestoring] = useState(site !== null);

  // A reload: the cookie may still hold a refresh token of the remembered site.
  useEffect(() => {
    if (site === null) return;
    client.site = site;
    let cancelled = false;
    (async () => {
      try {
        await client.auth.refresh();
        const { data } = await client.api.GET('/api/v1/auth/me');
        if (!cancelled) setUser(data!.data as SignedInUser);
      } catch (error) {
        if (!(error instanceof SvcError)) console.warn('session restore failed', error);
      } finally {
        if (!cancelled) setRestoring(false);
      }
    })();
    return () => {
      cancelled = true;
    };
    // Only on load: later sign-ins set the user themselves.
  }, []);

  const signIn = useCallback(
    async (nextSite: string, email: string, password: string) => {
      client.site = nextSite;
      const { user: signedIn } = await client.auth.login(email, password);
      queryClient.clear();
      localStorage.setItem(SITE_KEY, nextSite);
      const sites = [nextSite, ...readKnownSites().filter((known) => known !== nextSite)].slice(0, 20);
      localStorage.setItem(KNOWN_SITES_KEY, JSON.stringify(sites));
      setKnownSites(sites);
      setSite(nextSite);
      setUser(signedIn);
    },
    [client, queryClient, setUser],
  );

  const signOut = useCallback(async () => {
    try {
      await client.auth.logout();
    } finally {
      queryClient.clear();
      setUser(null);
    }
  }, [client, queryClient, setUser]);

  const value = useMemo<Session>(
    () => ({ client, user, site, knownSites, restoring, isSignedIn, signIn, signOut }),
    [client, user, site, knownSites, restoring, isSignedIn, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
