package io.rdmakv.pool;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Which binding carries the arena's mapping calls ({@link MappingCalls}): decided once, on first use, logged once at
 * INFO ({@code memory-pool native calls: JNA (JDK 17 / ...)}). This is the JDK 17 version: JNA. The multi-release
 * jar's {@code META-INF/versions/22} holds the version a JDK 22+ loads, which chooses FFM. The system property
 * {@value #PROPERTY} ({@code auto}, {@code jna}, {@code ffm}; the transport's too) forces one; {@code ffm} where it is
 * unavailable makes {@link #calls()} throw. The memory pool keeps its own binding: it may not depend on the transport.
 */
final class MappingBindings
{
    static final String PROPERTY = "rdmakv.native";
    static final String FFM = "FFM";
    static final String JNA = "JNA";

    private static final Logger LOG = LoggerFactory.getLogger(MappingBindings.class);
    private static final String DESCRIPTION;
    private static final String FORCED_FAILURE;

    static
    {
        final int feature = Runtime.version().feature();
        final String requested = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        final String why = feature < 22 ? "java.lang.foreign is final from JDK 22" :
            "this is the JDK 17 class: the jar was built on JDK < 22 or is not read as a multi-release jar";
        DESCRIPTION = JNA + " (JDK " + feature + " / " + ("jna".equals(requested) ?
            "forced by -D" + PROPERTY + "=jna" : "FFM unavailable: " + why) + ")";
        FORCED_FAILURE = "ffm".equals(requested) ? "-D" + PROPERTY + "=ffm, but FFM is unavailable: " + why : null;
        LOG.info("memory-pool native calls: {}", FORCED_FAILURE != null ? FORCED_FAILURE : DESCRIPTION);
    }

    private MappingBindings()
    {
    }

    static String name()
    {
        return JNA;
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
        return JnaMappingCalls.INSTANCE;
    }
}
