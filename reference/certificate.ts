// X.509 v3 certificates (RFC 5280) with ECDSA P-256 keys, built with node:crypto alone.
//
// Node verifies and serves X.509 but cannot issue it. Libraries that can (node-forge, @peculiar/x509)
// cost more to load than `serve`'s whole start-up budget allows (@peculiar/x509: over 200 modules,
// ~120 ms), while a certificate is one fixed DER structure: this writes exactly the fields the
// reference's serving certificates need, and node:crypto does the keys and the signature.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

// ---- DER (X.690) ----

/** One TLV; lengths up to 64 KiB, far more than a certificate here needs. */
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  if (n > 0xffff) throw new RangeError(`DER value of ${n} bytes`);
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...len]), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const TRUE = tlv(0x01, Buffer.from([0xff]));
/** A BIT STRING of whole bytes. */
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
/** [n] EXPLICIT. */
const explicit = (n: number, c: Buffer) => tlv(0xa0 | n, c);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [a * 40 + b];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80);
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5), whole seconds, UTC. */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

/** One attribute of a Name, as UTF8String: Go refuses '@' (upstream's CNs have one) in a PrintableString. */
const attribute = (id: string, value: string) => set(seq(oid(id), tlv(0x0c, Buffer.from(value, 'utf8'))));

/**
 * A Name of organizations (O, a user's groups for client certificates) and a commonName, in the order
 * Go's pkix.Name writes them (O before CN).
 */
const distinguishedName = (cn: string, organizations: readonly string[] = []) =>
  seq(...organizations.map((o) => attribute('2.5.4.10', o)), attribute('2.5.4.3', cn));

/** The 4 or 16 bytes of an IP address. */
export function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) throw new TypeError(`not an IP address: ${ip}`);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two 16-bit groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  let text = ip.replace(/%.*$/, '');
  if (v4) {
    const b = v4.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4.length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

// ---- certificates ----

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** One extension: critical ones carry the flag, the value is DER inside an OCTET STRING. */
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [TRUE] : []), octets(value));

/** keyUsage bits, numbered as in RFC 5280 (digitalSignature 0 ... keyCertSign 5), as a DER BIT STRING. */
function keyUsage(...bitsSet: number[]): Buffer {
  const byte = bitsSet.reduce((b, i) => b | (0x80 >> i), 0);
  // DER drops trailing zero bits and says how many it dropped.
  let unused = 0;
  while (unused < 7 && !(byte & (1 << unused))) unused++;
  return tlv(0x03, Buffer.from([unused, byte]));
}
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;

/** A positive 16-byte serial, minimally encoded (Go rejects a redundant leading zero byte). */
function serialNumber(): Buffer {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x3f) | 0x40;
  return tlv(0x02, b);
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: Buffer): Buffer {
  // For P-256 the SubjectPublicKeyInfo ends with the 65-byte uncompressed point.
  return createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
}

export interface Issued {
  /** DER of the certificate. */
  readonly der: Buffer;
  readonly key: KeyObject;
  readonly keyId: Buffer;
  readonly subject: Buffer;
}

export interface CertificateRequest {
  readonly commonName: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Absent: a self-signed CA. */
  readonly issuer?: Issued;
  /** Serving certificates: DNS names and IP addresses (subjectAltName), extKeyUsage serverAuth. */
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
  /** A client certificate (extKeyUsage clientAuth, no names) instead of a serving one. */
  readonly client?: boolean;
  /** Subject organizations (O): the groups of a client certificate's user. */
  readonly organizations?: readonly string[];
}

/** A fresh P-256 key and a certificate for it: a CA when `issuer` is absent, else a serving certificate. */
export function issue(req: CertificateRequest): Issued {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = keyIdentifier(spki);
  const subject = distinguishedName(req.commonName, req.organizations);
  const ca = !req.issuer;
  const extensions = ca
    ? [
        extension('2.5.29.19', true, seq(TRUE)), // basicConstraints cA
        extension('2.5.29.15', true, keyUsage(DIGITAL_SIGNATURE, KEY_CERT_SIGN)),
        extension('2.5.29.14', false, octets(keyId)), // subjectKeyIdentifier
      ]
    : [
        extension('2.5.29.19', true, seq()), // basicConstraints, not a CA
        extension('2.5.29.15', true, keyUsage(DIGITAL_SIGNATURE)),
        extension('2.5.29.37', false, seq(oid(req.client ? '1.3.6.1.5.5.7.3.2' : '1.3.6.1.5.5.7.3.1'))), // extKeyUsage clientAuth or serverAuth
        // subjectAltName: dNSName [2] and iPAddress [7], IMPLICIT; left out when there are no names
        // (a client certificate), as an empty one is invalid.
        ...(req.dns?.length || req.ips?.length
          ? [extension('2.5.29.17', false, seq(...(req.dns ?? []).map((d) => tlv(0x82, Buffer.from(d, 'ascii'))), ...(req.ips ?? []).map((ip) => tlv(0x87, ipBytes(ip)))))]
          : []),
        extension('2.5.29.35', false, seq(tlv(0x80, req.issuer!.keyId))), // authorityKeyIdentifier
      ];
  const tbs = seq(
    explicit(0, tlv(0x02, Buffer.from([2]))), // v3
    serialNumber(),
    ECDSA_WITH_SHA256,
    req.issuer?.subject ?? subject,
    seq(time(req.notBefore), time(req.notAfter)),
    subject,
    spki,
    explicit(3, seq(...extensions)),
  );
  // node:crypto signs ECDSA as the DER Ecdsa-Sig-Value X.509 wants.
  const signature = sign('sha256', tbs, req.issuer?.key ?? privateKey);
  return { der: seq(tbs, ECDSA_WITH_SHA256, bits(signature)), key: privateKey, keyId, subject };
}

export function certificatePem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
}
