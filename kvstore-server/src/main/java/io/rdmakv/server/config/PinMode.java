package io.rdmakv.server.config;

/**
 * How the server pins its pool. {@code AUTO} resolves once the transport is known: {@code REQUIRED} for verbs (the
 * HCA must not see pages move), {@code BEST_EFFORT} for tcp (pinning only helps latency there).
 */
public enum PinMode
{
    AUTO,
    REQUIRED,
    BEST_EFFORT,
    OFF;

    /** The mode to use on {@code transportName}: {@code AUTO} becomes REQUIRED on verbs, BEST_EFFORT otherwise. */
    public PinMode resolve(final String transportName)
    {
        if (this != AUTO)
        {
            return this;
        }
        return "verbs".equals(transportName) ? REQUIRED : BEST_EFFORT;
    }
}
