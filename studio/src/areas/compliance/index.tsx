// Compliance: the audit log, its verification against signed checkpoints, erasure under dual control,
// consent and restriction, compliance reports and the field-access log.
import { createRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Area } from '../../area.ts';
import { appRoute } from '../../routes.tsx';
import { AccessLogPage } from './AccessLogPage.tsx';
import { AuditPage } from './AuditPage.tsx';
import { ConsentPage } from './ConsentPage.tsx';
import { ErasurePage } from './ErasurePage.tsx';
import { ReportsPage } from './ReportsPage.tsx';
import { VerifyPage } from './VerifyPage.tsx';

const route = (path: string, component: () => ReactNode) => createRoute({ getParentRoute: () => appRoute, path, component });

export const complianceArea: Area = {
  name: 'compliance',
  routes: [
    route('compliance/audit', AuditPage),
    route('compliance/verify', VerifyPage),
    route('compliance/erasure', ErasurePage),
    route('compliance/consent', ConsentPage),
    route('compliance/reports', ReportsPage),
    route('compliance/access-log', AccessLogPage),
  ],
  nav: [
    { to: '/compliance/audit', label: 'Audit log', section: 'Compliance', adminOnly: true },
    { to: '/compliance/verify', label: 'Verify the log', section: 'Compliance', adminOnly: true },
    { to: '/compliance/erasure', label: 'Erasure requests', section: 'Compliance', adminOnly: true },
    { to: '/compliance/consent', label: 'Consent and restriction', section: 'Compliance' },
    { to: '/compliance/reports', label: 'Compliance reports', section: 'Compliance', adminOnly: true },
    { to: '/compliance/access-log', label: 'Field-access log', section: 'Compliance', adminOnly: true },
  ],
};
