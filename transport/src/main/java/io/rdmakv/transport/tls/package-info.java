/**
 * TLS 1.3 for rdmakv's Netty connections (the tcp transport here; the control plane in the server and the client):
 * the settings and the contexts they make ({@link io.rdmakv.transport.tls.TlsSettings}), the gate that refuses a
 * plaintext peer on a TLS port and a TLS peer on a plaintext one ({@link io.rdmakv.transport.tls.TlsGate}), and the
 * wording of a failed handshake ({@link io.rdmakv.transport.tls.TlsFailures}). Netty and the JDK only.
 */
package io.rdmakv.transport.tls;
