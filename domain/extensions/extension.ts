// An installed extension of a site (docs/extensions.md): installed disabled with nothing granted;
// a higher version of its name upgrades it (what it still asks for stays granted, the rest is
// dropped); enabled and disabled by an administrator, who grants a subset of what it asks for.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { compareVersions } from './bundleFormat.ts';
import { type ExtensionBundleFacts, type ExtensionEvent, extensionEventSchemas } from './events.ts';

export type ExtensionCommand =
  | { type: 'installExtension'; extensionId: string; bundle: ExtensionBundleFacts }
  | { type: 'upgradeExtension'; bundle: ExtensionBundleFacts }
  | { type: 'enableExtension' }
  | { type: 'disableExtension' }
  | { type: 'grantCapabilities'; capabilities: readonly string[] };

export interface ExtensionState {
  status: 'absent' | 'installed';
  extensionId: string | null;
  name: string | null;
  version: string | null;
  requested: readonly string[];
  granted: readonly string[];
  enabled: boolean;
}

const notFound = () => new AppError('NOT_FOUND', 'Extension not found');

/** `wanted` without repeats, in the order the bundle asks for them (one stable order for the log). */
function inRequestedOrder(requested: readonly string[], wanted: readonly string[]): string[] {
  return requested.filter((capability) => wanted.includes(capability));
}

export const extensionDecider: Decider<ExtensionState, ExtensionCommand, ExtensionEvent> = {
  eventTypes: eventTypesOf(extensionEventSchemas),
  initialState: () => ({ status: 'absent', extensionId: null, name: null, version: null, requested: [], granted: [], enabled: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'extension.installed':
        return { status: 'installed', extensionId: event.data.extensionId, name: event.data.name, version: event.data.version, requested: event.data.capabilities, granted: [], enabled: false };
      case 'extension.upgraded':
        return { ...state, version: event.data.version, requested: event.data.capabilities, granted: event.data.granted };
      case 'extension.enabled':
        return { ...state, enabled: true };
      case 'extension.disabled':
        return { ...state, enabled: false };
      case 'extension.capabilities_granted':
        return { ...state, granted: event.data.granted };
    }
  },
  decide(command, state) {
    if (command.type === 'installExtension') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'Extension already exists');
      return [{ type: 'extension.installed', data: { extensionId: command.extensionId, ...command.bundle } }];
    }
    if (state.status !== 'installed') throw notFound();
    const extensionId = state.extensionId!;
    switch (command.type) {
      case 'upgradeExtension': {
        if (command.bundle.name !== state.name) throw new AppError('CONFLICT', `The bundle is "${command.bundle.name}", not "${state.name}"`);
        if (compareVersions(command.bundle.version, state.version!) <= 0) {
          throw new AppError('CONFLICT', `"${state.name}" ${state.version} is installed: an upload must have a higher version to replace it`, {
            path: ['body', 'bundle', 'manifest', 'version'],
            extensions: { installedVersion: state.version },
          });
        }
        const granted = inRequestedOrder(command.bundle.capabilities, state.granted);
        return [{ type: 'extension.upgraded', data: { extensionId, previousVersion: state.version!, granted, ...command.bundle } }];
      }
      case 'enableExtension':
        return state.enabled ? [] : [{ type: 'extension.enabled', data: { extensionId } }];
      case 'disableExtension':
        return state.enabled ? [{ type: 'extension.disabled', data: { extensionId } }] : [];
      case 'grantCapabilities': {
        const beyond = command.capabilities.findIndex((capability) => !state.requested.includes(capability));
        if (beyond >= 0) {
          throw new AppError('VALIDATION_FAILED', `"${command.capabilities[beyond]}" is not a capability this extension asks for (it asks for: ${state.requested.join(', ') || 'none'})`, {
            path: ['body', 'capabilities', beyond],
          });
        }
        const granted = inRequestedOrder(state.requested, command.capabilities);
        const same = granted.length === state.granted.length && granted.every((capability) => state.granted.includes(capability));
        return same ? [] : [{ type: 'extension.capabilities_granted', data: { extensionId, granted } }];
      }
    }
  },
};
