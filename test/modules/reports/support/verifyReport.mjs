// Verifies a compliance report offline (docs/compliance-reports.md): node verifyReport.mjs <report file> <signature.json> <public-key.pem>
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';

const [file, signatureFile, pemFile] = process.argv.slice(2);
const answer = JSON.parse(readFileSync(signatureFile, 'utf8'));
const { manifest, signature } = answer.data ?? answer; // the body of GET /reports/:id/signature, or its `data`
const canonical = (value) =>
  Array.isArray(value) ? `[${value.map(canonical).join(',')}]`
  : value && typeof value === 'object' ? `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`
  : JSON.stringify(value ?? null);
const publicKey = createPublicKey(readFileSync(pemFile, 'utf8'));
const signed = verify(null, Buffer.from(canonical(manifest), 'utf8'), publicKey, Buffer.from(signature, 'base64url'));
const hash = createHash('sha256');
let bytes = 0;
for await (const chunk of createReadStream(file)) { hash.update(chunk); bytes += chunk.length; }
const sha256 = hash.digest('hex');
const whole = sha256 === manifest.sha256 && bytes === manifest.bytes;
console.log(JSON.stringify({ signed, whole, sha256, logVerified: manifest.verification.valid, problems: manifest.verification.problems }));
process.exit(signed && whole ? 0 : 1);
