// The one server that answers both stand-ins: GitLab under /api/v4 and /oauth, GitHub everywhere else.
import { listen } from './common.ts';
import { createGitHub } from './github.ts';
import type { GitHubHost } from './githubTypes.ts';
import { createGitLab } from './gitlab.ts';
import type { GitLabHost } from './gitlabTypes.ts';

export interface GitHostServer {
  origin: string;
  github: GitHubHost;
  gitlab: GitLabHost;
  close(): Promise<void>;
}

export async function startGitHostServer(): Promise<GitHostServer> {
  let origin = '';
  const github = createGitHub(() => origin);
  const gitlab = createGitLab(() => origin);
  const listener = await listen((request, url, body) =>
    url.pathname.startsWith('/api/v4/') || url.pathname === '/oauth/token' ? gitlab.handle(request, url, body) : github.handle(request, url, body),
  );
  origin = listener.origin;
  github.host.baseUrl = origin;
  github.host.oauthTokenUrl = `${origin}/login/oauth/access_token`;
  gitlab.host.host = origin;
  gitlab.host.oauthTokenUrl = `${origin}/oauth/token`;
  return { origin, github: github.host, gitlab: gitlab.host, close: listener.close };
}
