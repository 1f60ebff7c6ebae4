package io.rdmakv.cli.doctor;

import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.ServerPinnedMemory;
import io.rdmakv.server.config.PinMode;

import java.util.List;

/**
 * What the server would pin against {@code RLIMIT_MEMLOCK}, judged as the server would act on it:
 * <ul>
 *   <li>on verbs the transport registers (so pins) the pool, whatever {@code pool.pin} says, and the request
 *       worker's endpoint-buffer block ({@code verbs.maxEndpoints} slices): the server checks the sum before it maps
 *       anything and refuses to start when it is above the limit: FAIL;</li>
 *   <li>pin REQUIRED and the pool above the limit: the server refuses to start: FAIL;</li>
 *   <li>pin BEST_EFFORT (the default on tcp) and the pool above the limit: runs unpinned: WARN;</li>
 *   <li>pin OFF on tcp, or everything within the limit (or {@code CAP_IPC_LOCK}): OK.</li>
 * </ul>
 * The figures and the fix are the server's own refusal text ({@link ServerPinnedMemory#describeRefusal}, built on
 * {@link MemlockLimit#describeRefusal}), so doctor and the server say the same thing: the parts (pool + endpoint
 * buffers N x slice = total), the limit to raise to, and the settings that pin less.
 */
public final class MemlockCheck
{
    static final String NAME = "memlock";

    private MemlockCheck()
    {
    }

    /**
     * @param limit     the process's limit (what a server started from this shell would inherit).
     * @param pinned    what the server would pin: {@code pool.size} plus its worker's buffers on the transport.
     * @param pinMode   {@code pool.pin} as configured (AUTO is resolved here).
     * @param transport the transport the server would use ({@code tcp}, {@code verbs}); {@code null} if unknown.
     */
    public static Check evaluate(final MemlockLimit limit, final ServerPinnedMemory pinned, final PinMode pinMode,
        final String transport)
    {
        final PinMode resolved = pinMode.resolve(transport);
        final boolean registersEverything = "verbs".equals(transport) || pinned.hasWorkerBuffers();
        final String facts = pinned.parts() + ", " + limit + ", pool.pin " + pinMode +
            (pinMode == PinMode.AUTO ? " -> " + resolved : "") +
            " on " + (transport == null ? "an unknown transport" : transport);
        if (resolved == PinMode.OFF && !registersEverything)
        {
            return Check.ok(NAME, "the pool is not pinned (pool.pin OFF), so the limit does not apply: " + facts);
        }
        if (pinned.fits(limit))
        {
            return Check.ok(NAME, (pinned.hasWorkerBuffers() ? "the pool and the endpoint buffers fit: " :
                "the pool fits: ") + facts);
        }
        final String refusal = pinned.describeRefusal(limit);
        final int fixAt = refusal.indexOf("Fix: ");
        final String fix = fixAt >= 0 ? refusal.substring(fixAt + "Fix: ".length()) : refusal;
        final List<String> details = List.of(refusal);
        if (registersEverything)
        {
            return Check.fail(NAME, "the server would refuse to start: on " + transport + " the pool" +
                (pinned.hasWorkerBuffers() ? " and the request worker's endpoint buffers are" : " is") +
                " registered, so pinned whatever pool.pin says, and RLIMIT_MEMLOCK cannot hold " +
                (pinned.hasWorkerBuffers() ? "them: " : "it: ") + facts, fix).withDetails(details);
        }
        if (resolved == PinMode.REQUIRED)
        {
            return Check.fail(NAME, "the server would refuse to start: the pool must be pinned and is above " +
                "RLIMIT_MEMLOCK: " + facts, fix).withDetails(details);
        }
        return Check.warn(NAME, "the pool would run unpinned (pages may be swapped out): " + facts, fix)
            .withDetails(details);
    }
}
