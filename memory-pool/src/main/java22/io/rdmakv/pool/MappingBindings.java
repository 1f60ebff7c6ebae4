package io.rdmakv.pool;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Which binding carries the arena's mapping calls ({@link MappingCalls}): decided once, on first use, logged once at
 * INFO ({@code memory-pool native calls: FFM (JDK 25)}). This is the JDK 22+ version ({@code META-INF/versions/22}):
 * FFM unless {@value #PROPERTY}=jna or the FFM handles cannot be made (then JNA, with the reason). {@code ffm} where
 * FFM is unavailable makes {@link #calls()} throw.
 */
final class MappingBindings
{
    static final String PROPERTY = "rdmakv.native";
    static final String FFM = "FFM";
    static final String JNA = "JNA";

    private static final Logger LOG = LoggerFactory.getLogger(MappingBindings.class);
    private static final MappingCalls CALLS;
    private static final String DESCRIPTION;
    private static final String FORCED_FAILURE;

    static
    {
        final int feature = Runtime.version().feature();
        final String requested = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        MappingCalls calls = JnaMappingCalls.INSTANCE;
        String description;
        String forcedFailure = null;
        if ("jna".equals(requested))
        {
            description = JNA + " (JDK " + feature + " / forced by -D" + PROPERTY + "=jna)";
        }
        else
        {
            try
            {
                calls = FfmMappingCalls.create();
                description = FFM + " (JDK " + feature + ")";
            }
            catch (final Throwable t)
            {
                final String why = t.getClass().getSimpleName() + ": " + t.getMessage();
                description = JNA + " (JDK " + feature + " / FFM unavailable: " + why + ")";
                if ("ffm".equals(requested))
                {
                    forcedFailure = "-D" + PROPERTY + "=ffm, but FFM is unavailable: " + why;
                }
            }
        }
        CALLS = calls;
        DESCRIPTION = description;
        FORCED_FAILURE = forcedFailure;
        LOG.info("memory-pool native calls: {}", FORCED_FAILURE != null ? FORCED_FAILURE : DESCRIPTION);
    }

    private MappingBindings()
    {
    }

    static String name()
    {
        return CALLS.name();
    }

    static String description()
    {
        return DESCRIPTION;
    }

    static MappingCalls calls()
    {
        if (FORCED_FAILURE != null)
        {
            throw new IllegalStateException(FORCED_FAILURE);
        }
        return CALLS;
    }
}
