package io.rdmakv.transport.libc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Which binding carries the transport's data-path native calls: JNA or FFM ({@code java.lang.foreign}). Decided once
 * per process, on first use, and logged once at INFO ({@code native calls: FFM (JDK 25)} or
 * {@code native calls: JNA (JDK 25 / FFM unavailable: ...)}); the verbs binding
 * ({@code io.rdmakv.transport.verbs.ffi.VerbsOps}) follows the same choice.
 *
 * <p>This is the JDK 22+ version of the class ({@code META-INF/versions/22} of the multi-release jar): it chooses FFM
 * unless {@value #PROPERTY}=jna, or the FFM libc handles cannot be made (then JNA, with the reason logged). The
 * system property {@value #PROPERTY} = {@code auto} (the default), {@code jna} or {@code ffm} forces one;
 * {@code ffm} where it is unavailable makes {@link #libc()} throw, with the reason, rather than fall back silently.
 */
public final class NativeBindings
{
    /** The system property that forces a binding: {@code auto}, {@code jna} or {@code ffm}. */
    public static final String PROPERTY = "rdmakv.native";
    public static final String FFM = "FFM";
    public static final String JNA = "JNA";

    private static final Logger LOG = LoggerFactory.getLogger(NativeBindings.class);
    private static final LibcCalls LIBC;
    private static final String DESCRIPTION;
    private static final String FORCED_FAILURE;

    static
    {
        final int feature = Runtime.version().feature();
        final String requested = requestedMode();
        LibcCalls libc = JnaLibcCalls.INSTANCE;
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
                libc = FfmLibcCalls.create();
                final boolean access = NativeBindings.class.getModule().isNativeAccessEnabled();
                description = FFM + " (JDK " + feature + (access ? "" :
                    "; native access not enabled: the JDK warns once, run with --enable-native-access=ALL-UNNAMED") +
                    ")";
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
        LIBC = libc;
        DESCRIPTION = description;
        FORCED_FAILURE = forcedFailure;
        if (FORCED_FAILURE != null)
        {
            LOG.error("native calls: {}", FORCED_FAILURE);
        }
        else
        {
            LOG.info("native calls: {}", DESCRIPTION);
        }
    }

    private NativeBindings()
    {
    }

    /** {@link #FFM} or {@link #JNA}: the binding the data-path calls use. */
    public static String name()
    {
        return LIBC.name();
    }

    /** True when the data-path calls go through FFM. */
    public static boolean isFfm()
    {
        return FFM.equals(LIBC.name());
    }

    /** The binding and why it was chosen, as logged: {@code "FFM (JDK 25)"}. */
    public static String description()
    {
        return DESCRIPTION;
    }

    /**
     * The data-path libc calls in the chosen binding.
     *
     * @throws IllegalStateException when {@value #PROPERTY}=ffm and FFM is unavailable.
     */
    public static LibcCalls libc()
    {
        checkNotForced();
        return LIBC;
    }

    /** Throws when {@value #PROPERTY}=ffm and FFM is unavailable (for the verbs binding's factory). */
    public static void checkNotForced()
    {
        if (FORCED_FAILURE != null)
        {
            throw new IllegalStateException(FORCED_FAILURE);
        }
    }

    /** {@code auto}, {@code jna} or {@code ffm} from {@value #PROPERTY}; anything else is {@code auto}, with a warning. */
    static String requestedMode()
    {
        final String value = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        if (value.equals("auto") || value.equals("jna") || value.equals("ffm"))
        {
            return value;
        }
        LoggerFactory.getLogger(NativeBindings.class).warn("-D{}={}: not auto, jna or ffm; using auto", PROPERTY,
            value);
        return "auto";
    }
}
