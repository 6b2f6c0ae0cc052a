// Upload of a signed bundle (multipart: the bundle file, its detached Ed25519 signature and the signer's
// key id). The API's refusal (unsigned, untrusted signer, bad signature, invalid bundle, reserved name)
// is shown at the field it names, with its reason.
import { useMutation } from '@tanstack/react-query';
import { SvcError } from '@svc-cms/sdk';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { formErrors } from '../../ui/errors.ts';
import { Field } from '../../ui/parts.tsx';
import type { Extension } from './api.ts';

const REASONS: Record<string, string> = {
  unsigned: 'The bundle is not signed',
  untrusted_signer: 'The signer is not trusted by this service',
  bad_signature: 'The signature does not verify',
  invalid_bundle: 'The bundle is not a valid extension bundle',
  reserved_namespace: 'The name is in the reserved official namespace',
};

export function UploadForm({ onUploaded }: { onUploaded(extension: Extension, upgraded: boolean): void }) {
  const client = useClient();
  const [file, setFile] = useState<File | null>(null);
  const [signature, setSignature] = useState('');
  const [keyId, setKeyId] = useState('');
  const [formKey, setFormKey] = useState(0);
  const upload = useMutation({
    mutationFn: async () => {
      const form = new FormData();
      if (signature.trim()) form.append('signature', signature.trim());
      if (keyId.trim()) form.append('keyId', keyId.trim());
      if (file) form.append('bundle', file, file.name);
      const response = await client.fetch(new Request(`${client.baseUrl}/api/v1/extensions/upload`, { method: 'POST', body: form }));
      return { extension: ((await response.json()) as { data: Extension }).data, upgraded: response.status === 200 };
    },
    onSuccess: ({ extension, upgraded }) => {
      setFile(null);
      setSignature('');
      setKeyId('');
      setFormKey((key) => key + 1);
      onUploaded(extension, upgraded);
    },
  });
  const errors = formErrors(upload.error);
  const reason = upload.error instanceof SvcError ? upload.error.extensions.reason : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate();
  };

  return (
    <form className="stack" onSubmit={submit} aria-label="Upload extension" key={formKey}>
      {typeof reason === 'string' ? (
        <p role="alert" className="alert">Refused: {REASONS[reason] ?? reason} ({reason})</p>
      ) : null}
      {errors.general.map((message) => <p key={message} role="alert" className="alert">{message}</p>)}
      <Field label="Bundle file" error={errors.fields.bundle} hint="The bundle's JSON, exactly as it was signed">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} type="file" accept="application/json,.json" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />}
      </Field>
      <Field label="Signature" error={errors.fields.signature} hint="Base64 of the detached Ed25519 signature">
        {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={signature} onChange={(event) => setSignature(event.target.value)} rows={2} />}
      </Field>
      <Field label="Signer key id" error={errors.fields.keyId}>
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={keyId} onChange={(event) => setKeyId(event.target.value)} maxLength={64} />}
      </Field>
      <div className="row">
        <button type="submit" className="primary" disabled={upload.isPending || file === null}>Upload</button>
      </div>
    </form>
  );
}
