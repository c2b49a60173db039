import Selfsigned from 'selfsigned';

/** The webhook receiver's host name in the tests; they resolve it to 127.0.0.1. */
export const receiverHost = 'receiver.test';

/** The host name deploy/nginx.conf serves (its server_name). */
export const siteHost = 'family.example.com';

export interface TestPki {
    /** The test CA's certificate, for a client to trust. */
    ca: string;
    key: string;
    cert: string;
}

let pki: Promise<TestPki> | undefined;

/**
 * A test CA and a server certificate it signs for the test's TLS servers (the webhook receiver, nginx in
 * front of the service), valid for their host names and 127.0.0.1; made once per process.
 */
export function testPki(): Promise<TestPki> {

    pki ??= (async () => {

        const ca = await Selfsigned.generate([{ name: 'commonName', value: 'Family Records test CA' }], {
            keyType: 'ec', algorithm: 'sha256',
            extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }]
        });
        const server = await Selfsigned.generate([{ name: 'commonName', value: receiverHost }], {
            keyType: 'ec', algorithm: 'sha256',
            ca: { key: ca.private, cert: ca.cert },
            extensions: [
                { name: 'basicConstraints', cA: false },
                { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
                { name: 'extKeyUsage', serverAuth: true },
                { name: 'subjectAltName', altNames: [{ type: 2, value: receiverHost }, { type: 2, value: siteHost }, { type: 7, ip: '127.0.0.1' }] }
            ]
        });
        return { ca: ca.cert, key: server.private, cert: server.cert };
    })();

    return pki;
}
