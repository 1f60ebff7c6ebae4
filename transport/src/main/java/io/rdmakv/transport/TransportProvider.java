package io.rdmakv.transport;

/**
 * Entry point of one transport, discovered through {@link java.util.ServiceLoader}.
 * Availability follows Netty's {@code Epoll}: {@link #isAvailable()}, {@link #unavailabilityCause()} and a
 * system property {@code rdmakv.transport.<name>.disabled=true} that forces the transport off.
 */
public interface TransportProvider
{
    /** Short stable name, e.g. {@code "tcp"} or {@code "verbs"}. */
    String name();

    /**
     * Whether the transport can be opened on this machine now: no {@link #unavailabilityCause()}. Cheap after the
     * first call (probe is cached).
     */
    default boolean isAvailable()
    {
        return unavailabilityCause() == null;
    }

    /** Why the transport is not available, as a sentence an operator can act on; {@code null} when available. */
    String unavailabilityCause();

    /** What the transport can do, with its limits and performance model; valid even when unavailable. */
    TransportCapabilities capabilities();

    /**
     * Open the transport.
     *
     * @throws TransportException when the transport is unavailable (the message carries the cause) or fails to open.
     */
    Transport open(TransportConfig config);

    /**
     * What each worker of a transport opened with {@code config} registers (pins) when it is created, computed from
     * the settings alone (no device is opened; limits a device would impose are not applied, so this is an upper
     * bound). Nothing by default.
     *
     * @throws TransportException when a setting of this transport is invalid, naming it.
     */
    default WorkerPinning workerPinning(final TransportConfig config)
    {
        return WorkerPinning.NONE;
    }

    /** True when the property {@code rdmakv.transport.<name>.disabled} is set to {@code true}. */
    static boolean isDisabledByProperty(final String name)
    {
        return Boolean.getBoolean("rdmakv.transport." + name + ".disabled");
    }
}
