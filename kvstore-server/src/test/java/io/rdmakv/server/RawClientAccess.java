package io.rdmakv.server;

import java.net.InetSocketAddress;

/** Lets tests in other packages drive a {@link RawClient}. */
public final class RawClientAccess implements AutoCloseable
{
    private final RawClient client;

    /** Handshake on {@code control} (no credential), connect to {@code data} and attach. */
    public RawClientAccess(final InetSocketAddress control, final InetSocketAddress data) throws Exception
    {
        client = RawClient.attached(control, data, "");
    }

    /** PUT and return the status name. */
    public String put(final byte[] key, final byte[] value) throws Exception
    {
        return client.put(key, value).status().name();
    }

    @Override
    public void close()
    {
        client.close();
    }
}
