/**
 * Admission of connections that have not authenticated yet, on both ports: a budget apart from authenticated
 * connections, bounded in total and per source address, with a short deadline, that sheds its oldest member rather
 * than refuse a newcomer ({@link io.rdmakv.server.admission.UnauthenticatedBudget}); and a per-source throttle on
 * failed credentials ({@link io.rdmakv.server.admission.CredentialThrottle}). Settings in
 * {@link io.rdmakv.server.admission.AdmissionSettings}.
 *
 * <p>Single-threaded classes, each owned by one event loop (the control plane's, or the data plane's request
 * thread). Must never depend on: the store, the pool, or a concrete transport.
 */
package io.rdmakv.server.admission;
