// The signed-in shell: navigation by section, the site switcher, the theme toggle and sign-out.
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { areas } from '../areas/index.ts';
import type { NavEntry } from '../area.ts';
import { useSession } from '../session.tsx';
import { useTheme, type Appearance } from '../theme.tsx';
import { useIsAdmin } from './permissions.ts';

const SECTIONS: NavEntry['section'][] = ['Content', 'Workflow', 'Files', 'Insights', 'Administration', 'Compliance', 'Account'];

export function Layout() {
  const { user, site, knownSites, signOut } = useSession();
  const { site: look, choice, setChoice } = useTheme();
  const navigate = useNavigate();
  const admin = useIsAdmin();
  const entries = areas.flatMap((area) => area.nav).filter((entry) => admin || !entry.adminOnly);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <nav aria-label="Studio">
        <div className="brand">
          {look?.branding?.logoUrl ? <img src={look.branding.logoUrl} alt="" /> : null}
          <span>{look?.displayTitle || look?.name || site}</span>
        </div>
        {SECTIONS.map((section) => {
          const inSection = entries.filter((entry) => entry.section === section);
          if (inSection.length === 0) return null;
          return (
            <div key={section}>
              <h2>{section}</h2>
              <ul>
                {inSection.map((entry) => (
                  <li key={entry.to}>
                    <Link to={entry.to}>{entry.label}</Link>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </nav>
      <div>
        <header className="topbar">
          <label className="row">
            <span className="sr-only">Site</span>
            <select
              aria-label="Switch site"
              value={site ?? ''}
              onChange={(event) => void navigate({ to: '/signin', search: { next: '/', site: event.target.value } as never })}
            >
              {[...new Set([site ?? '', ...knownSites])].filter(Boolean).map((known) => (
                <option key={known} value={known}>{known}</option>
              ))}
              <option value="">Another site…</option>
            </select>
          </label>
          <label className="row">
            <span className="sr-only">Appearance</span>
            <select aria-label="Appearance" value={choice} onChange={(event) => setChoice(event.target.value as Appearance)}>
              <option value="auto">System theme</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <span className="muted">{user?.email}</span>
          <button type="button" onClick={() => void signOut().then(() => navigate({ to: '/signin' }))}>Sign out</button>
        </header>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}
