// Live updates through the realtime channel: a signal (no data) says an item of the collection changed;
// the page refetches what it shows and says who changed it (the item's `userUpdated`, or `userCreated`
// for a new one; their email when the caller may look users up, else their id).
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useClient } from '../../session.tsx';
import { enc, userName, type Item } from './api.ts';
import { call } from '../../api.ts';

export interface LiveNotice {
  text: string;
  itemId: string;
  at: number;
}

/**
 * Subscribes to the collection (one item when `id` is given) while the page is open. `isOwn(version)`
 * tells a change this page made itself (no notice for those).
 */
export function useLiveChanges(collection: string, id: string | null, isOwn: (version: number | null) => boolean = () => false): LiveNotice | null {
  const client = useClient();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState<LiveNotice | null>(null);
  const ownRef = useRef(isOwn);
  ownRef.current = isOwn;

  useEffect(() => {
    let active = true;
    const subscription = client.realtime.subscribe(collection, id ? { itemId: { _eq: id } } : undefined, (signal) => {
      void (async () => {
        if (signal.type === 'resync') {
          await queryClient.invalidateQueries({ queryKey: ['items', collection] });
          return;
        }
        if (id !== null && signal.itemId !== id) return;
        let text: string;
        if (signal.action === 'delete') {
          text = `Item ${signal.itemId} was deleted just now`;
        } else {
          try {
            const { body, response } = await call<{ data: Item }>(client, 'GET', `/items/${enc(collection)}/${enc(signal.itemId)}`);
            const version = Number(/\d+/.exec(response.headers.get('etag') ?? '')?.[0] ?? NaN);
            await queryClient.invalidateQueries({ queryKey: ['items', collection] });
            if (ownRef.current(Number.isNaN(version) ? null : version)) return;
            const who = (signal.action === 'create' ? body.data.userCreated : body.data.userUpdated) ?? body.data.userCreated;
            const name = typeof who === 'string' ? await userName(client, who) : 'someone';
            text = signal.action === 'create' ? `Created by ${name} just now (item ${signal.itemId})` : `Updated by ${name} just now${id === null ? ` (item ${signal.itemId})` : ''}`;
          } catch {
            await queryClient.invalidateQueries({ queryKey: ['items', collection] });
            return;
          }
        }
        if (active) setNotice({ text, itemId: signal.itemId, at: Date.now() });
      })();
    }, { onError: (error) => console.warn('realtime', error) });
    return () => {
      active = false;
      subscription.close();
    };
  }, [client, queryClient, collection, id]);

  return notice;
}
