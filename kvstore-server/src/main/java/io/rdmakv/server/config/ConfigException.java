package io.rdmakv.server.config;

/** An invalid server configuration: the message names the setting, the bad value and what is allowed. */
public class ConfigException extends RuntimeException
{
    public ConfigException(final String message)
    {
        super(message);
    }

    public ConfigException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
