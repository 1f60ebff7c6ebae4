package io.rdmakv.cli.doctor;

import io.rdmakv.pool.ByteSizes;
import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.config.PinMode;
import io.rdmakv.transport.diag.Check;

import java.util.List;

/**
 * The pool size against {@code RLIMIT_MEMLOCK}, judged as the server would act on it:
 * <ul>
 *   <li>pin REQUIRED (the default on verbs) and the pool above the limit: the server refuses to start: FAIL;</li>
 *   <li>on verbs even an unpinned pool is pinned by {@code ibv_reg_mr}, which counts against the same limit and
 *       fails with ENOMEM: FAIL whatever the pin mode;</li>
 *   <li>pin BEST_EFFORT (the default on tcp) and the pool above the limit: runs unpinned: WARN;</li>
 *   <li>pin OFF on tcp, or the pool within the limit (or {@code CAP_IPC_LOCK}): OK.</li>
 * </ul>
 * The fix is the pool's own refusal text ({@link MemlockLimit#describeRefusal}), so doctor and the server say the
 * same thing.
 */
public final class MemlockCheck
{
    static final String NAME = "memlock";

    private MemlockCheck()
    {
    }

    /**
     * @param limit     the process's limit (what a server started from this shell would inherit).
     * @param poolBytes {@code pool.size}.
     * @param pinMode   {@code pool.pin} as configured (AUTO is resolved here).
     * @param transport the transport the server would use ({@code tcp}, {@code verbs}); {@code null} if unknown.
     */
    public static Check evaluate(final MemlockLimit limit, final long poolBytes, final PinMode pinMode,
        final String transport)
    {
        final PinMode resolved = pinMode.resolve(transport);
        final boolean verbs = "verbs".equals(transport);
        final String facts = "pool.size " + ByteSizes.withExactBytes(poolBytes) + ", " + limit +
            ", pool.pin " + pinMode + (pinMode == PinMode.AUTO ? " -> " + resolved : "") +
            " on " + (transport == null ? "an unknown transport" : transport);
        if (resolved == PinMode.OFF && !verbs)
        {
            return Check.ok(NAME, "the pool is not pinned (pool.pin OFF), so the limit does not apply: " + facts);
        }
        if (limit.allows(poolBytes))
        {
            return Check.ok(NAME, "the pool fits: " + facts);
        }
        final String refusal = limit.describeRefusal(poolBytes, "RLIMIT_MEMLOCK is smaller than the pool");
        final int fixAt = refusal.indexOf("Fix: ");
        final String fix = fixAt >= 0 ? refusal.substring(fixAt + "Fix: ".length()) : refusal;
        final List<String> details = List.of(refusal);
        if (resolved == PinMode.REQUIRED)
        {
            return Check.fail(NAME, "the server would refuse to start: the pool must be pinned and is above " +
                "RLIMIT_MEMLOCK: " + facts, fix).withDetails(details);
        }
        if (verbs)
        {
            return Check.fail(NAME, "memory registration would fail (ibv_reg_mr pins the pool against " +
                "RLIMIT_MEMLOCK whatever pool.pin says): " + facts, fix).withDetails(details);
        }
        return Check.warn(NAME, "the pool would run unpinned (pages may be swapped out): " + facts, fix)
            .withDetails(details);
    }
}
