package io.rdmakv.server.admission;

import java.time.Duration;

/**
 * How a node admits connections that have not authenticated, on each of its two ports (the control port before a
 * good HELLO, the data port before a valid ATTACH), and how it slows down failed credentials.
 *
 * @param maxUnauthenticated          unauthenticated connections per port; when full, the oldest is shed.
 * @param maxUnauthenticatedPerSource of them from one source address (IPv6: one /64); when full, its oldest is shed.
 * @param handshakeTimeout            how long a connection may stay unauthenticated.
 * @param failedCredentialBurst       failed credentials a source may have at once.
 * @param failedCredentialInterval    then one more per this time; HELLOs beyond wait for their turn.
 */
public record AdmissionSettings(int maxUnauthenticated, int maxUnauthenticatedPerSource, Duration handshakeTimeout,
    int failedCredentialBurst, Duration failedCredentialInterval)
{
    /** Sources whose failed credentials are remembered at most. */
    public static final int MAX_THROTTLED_SOURCES = 65_536;

    public AdmissionSettings
    {
        if (maxUnauthenticated < 1 || maxUnauthenticatedPerSource < 1 || failedCredentialBurst < 1 ||
            handshakeTimeout.isNegative() || handshakeTimeout.isZero() || failedCredentialInterval.isNegative() ||
            failedCredentialInterval.isZero())
        {
            throw new IllegalArgumentException("admission settings must be positive: " + maxUnauthenticated + ", " +
                maxUnauthenticatedPerSource + ", " + handshakeTimeout + ", " + failedCredentialBurst + ", " +
                failedCredentialInterval);
        }
    }

    /** A fresh budget for one port. */
    public <C> UnauthenticatedBudget<C> newBudget()
    {
        return new UnauthenticatedBudget<>(maxUnauthenticated, maxUnauthenticatedPerSource, handshakeTimeout.toNanos());
    }

    /** A fresh throttle for the control port. */
    public CredentialThrottle newThrottle()
    {
        return new CredentialThrottle(failedCredentialBurst, failedCredentialInterval.toNanos(),
            MAX_THROTTLED_SOURCES);
    }
}
