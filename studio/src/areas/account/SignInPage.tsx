// Sign-in: the site, email and password. The site switcher comes here with `site` set.
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { errorText } from '../../ui/errors.ts';

export function SignInPage() {
  const { signIn, site: lastSite } = useSession();
  const search = useSearch({ strict: false }) as { next?: string; site?: string };
  const navigate = useNavigate();
  const [site, setSite] = useState(search.site ?? lastSite ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(site.trim(), email.trim(), password);
      await navigate({ to: search.next && search.next.startsWith('/') && !search.next.startsWith('//') ? search.next : '/' });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="signin card">
      <h1>Sign in to the Studio</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <div className="field">
          <label htmlFor="signin-site">Site</label>
          <input id="signin-site" name="site" value={site} onChange={(event) => setSite(event.target.value)} required autoComplete="organization" />
        </div>
        <div className="field">
          <label htmlFor="signin-email">Email</label>
          <input id="signin-email" name="email" type="email" value={email} onChange={(event) => setEmail(event.target.value)} required autoComplete="username" />
        </div>
        <div className="field">
          <label htmlFor="signin-password">Password</label>
          <input id="signin-password" name="password" type="password" value={password} onChange={(event) => setPassword(event.target.value)} required autoComplete="current-password" />
        </div>
        {error ? <p role="alert" className="alert">{error}</p> : null}
        <button className="primary" type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
