import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { SvcError } from '@svc-cms/sdk';
import { areas } from './areas/index.ts';
import { appRoute, currentSession, rootRoute, signInRoute } from './routes.tsx';
import { SessionProvider, useSession } from './session.tsx';
import { ThemeProvider } from './theme.tsx';
import './styles.css';

const routeTree = rootRoute.addChildren([signInRoute, appRoute.addChildren(areas.flatMap((area) => area.routes))]);

const router = createRouter({
  routeTree,
  basepath: '/studio',
  defaultPreload: false,
});

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal will not change by asking again; a network blip may.
      retry: (failures, error) => !(error instanceof SvcError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
    },
  },
});

function RoutedApp() {
  const session = useSession();
  currentSession.session = session;
  // The guards ran with the session of their time: run them again when it changes (not while restoring,
  // which would send a reloaded page to the sign-in form before the cookie is tried).
  useEffect(() => {
    if (!session.restoring) void router.invalidate();
  }, [session.user, session.site, session.restoring]);
  if (session.restoring) return <p className="boot" role="status">Loading…</p>;
  return <RouterProvider router={router} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <ThemeProvider>
          <RoutedApp />
        </ThemeProvider>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
