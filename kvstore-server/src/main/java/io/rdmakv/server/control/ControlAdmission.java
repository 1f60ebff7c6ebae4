package io.rdmakv.server.control;

import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.admission.CredentialThrottle;
import io.rdmakv.server.admission.UnauthenticatedBudget;

/**
 * What the control port's connections share about admission: the budget of connections that have not sent a good
 * HELLO yet, how many have (against {@code limits.maxConnections}), and the failed-credential throttle. Only the
 * control plane's one event loop touches it (the server's boss and child loop are the same single thread).
 */
final class ControlAdmission
{
    final UnauthenticatedBudget<ControlHandler> unauthenticated;
    final CredentialThrottle throttle;
    final int maxAuthenticated;
    int authenticated;

    ControlAdmission(final AdmissionSettings settings, final int maxAuthenticated)
    {
        this.unauthenticated = settings.newBudget();
        this.throttle = settings.newThrottle();
        this.maxAuthenticated = maxAuthenticated;
    }
}
