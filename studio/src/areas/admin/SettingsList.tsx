// The site's key/value settings: each effective value (JSON), edited one at a time, and a new key.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Field, QueryState } from '../../ui/parts.tsx';
import { GeneralErrors, useFormErrors } from './common.tsx';

export function SettingsList() {
  const client = useClient();
  const settings = useQuery({
    queryKey: ['admin', 'settings'],
    queryFn: async () => (await client.api.GET('/api/v1/settings')).data!.data as Record<string, unknown>,
  });
  return (
    <section className="card stack" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <QueryState query={settings} />
      {settings.data ? Object.entries(settings.data).map(([key, value]) => <SettingForm key={key} settingKey={key} value={value} />) : null}
      <SettingForm settingKey={null} value={null} />
    </section>
  );
}

function SettingForm({ settingKey, value }: { settingKey: string | null; value: unknown }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [key, setKey] = useState(settingKey ?? '');
  const [text, setText] = useState(settingKey === null ? '' : JSON.stringify(value, null, 2));
  const [jsonError, setJsonError] = useState<string | undefined>();
  const [errors, setErrors] = useFormErrors();
  const save = useMutation({
    mutationFn: async (parsed: unknown) => client.api.PUT('/api/v1/settings/{key}', { params: { path: { key: key.trim() } }, body: { value: parsed } }),
    onSuccess: async () => {
      setErrors(null);
      if (settingKey === null) {
        setKey('');
        setText('');
      }
      await queryClient.invalidateQueries({ queryKey: ['admin', 'settings'] });
    },
    onError: setErrors,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      setJsonError('The value is JSON, e.g. "text", 12, true or {"a": 1}');
      return;
    }
    setJsonError(undefined);
    save.mutate(parsed);
  }
  const label = settingKey ?? 'new setting';
  return (
    <form className="stack" onSubmit={submit} aria-label={`Setting ${label}`}>
      {settingKey === null ? (
        <>
          <h3>New setting</h3>
          <Field label="Setting key">
            {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={key} onChange={(event) => setKey(event.target.value)} required />}
          </Field>
        </>
      ) : null}
      <Field label={settingKey === null ? 'Value (JSON)' : `${settingKey} (JSON)`} error={jsonError ?? errors.fields.value}>
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={text} onChange={(event) => setText(event.target.value)} rows={Math.min(8, text.split('\n').length + 1)} required />}
      </Field>
      <GeneralErrors errors={errors} placed={['value']} />
      <div className="row">
        <button type="submit" aria-label={settingKey === null ? 'Add setting' : `Save ${settingKey}`}>{settingKey === null ? 'Add setting' : 'Save'}</button>
        {save.isSuccess ? <span role="status" className="ok">Saved</span> : null}
      </div>
    </form>
  );
}
