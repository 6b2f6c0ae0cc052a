// The route tree's trunk: the sign-in page, and the signed-in layout every area hangs its pages on.
import { createRootRoute, createRoute, Outlet, redirect } from '@tanstack/react-router';
import { Layout } from './ui/Layout.tsx';
import { SignInPage } from './areas/account/SignInPage.tsx';
import type { Session } from './session.tsx';

/** The session the route guards ask, set by the app on every render (the router outlives renders). */
export const currentSession: { session: Session | null } = { session: null };

export const rootRoute = createRootRoute({ component: Outlet });

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'signin',
  validateSearch: (search: Record<string, unknown>): { next?: string; site?: string } => ({
    ...(typeof search.next === 'string' && search.next.startsWith('/') ? { next: search.next } : {}),
    ...(typeof search.site === 'string' ? { site: search.site } : {}),
  }),
  component: SignInPage,
});

/** Every page behind it needs a user: without one the browser goes to the sign-in page and comes back. */
export const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: ({ location }) => {
    if (!currentSession.session?.isSignedIn()) throw redirect({ to: '/signin', search: { next: location.href } });
  },
  component: Layout,
});
