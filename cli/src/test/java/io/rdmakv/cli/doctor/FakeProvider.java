package io.rdmakv.cli.doctor;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;

import java.util.EnumSet;
import java.util.List;

/**
 * A provider described entirely by its constructor arguments, to drive the selection verdicts; it cannot be
 * opened. {@link #verbsLike} has the verbs transport's capabilities.
 */
class FakeProvider implements TransportProvider
{
    private final String name;
    private final boolean available;
    private final String cause;
    private final TransportCapabilities capabilities;

    FakeProvider(final String name, final boolean available, final String cause,
        final TransportCapabilities capabilities)
    {
        this.name = name;
        this.available = available;
        this.cause = cause;
        this.capabilities = capabilities;
    }

    static FakeProvider verbsLike(final boolean available, final String cause)
    {
        return new FakeProvider("verbs", available, cause, new TransportCapabilities(
            EnumSet.copyOf(List.of(TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE,
                TransportCapability.READ_BATCH)), 1 << 20, 1 << 20, 128, 2_000, 5e9));
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public boolean isAvailable()
    {
        return available;
    }

    @Override
    public String unavailabilityCause()
    {
        return available ? null : cause;
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilities;
    }

    @Override
    public Transport open(final TransportConfig config)
    {
        throw new TransportException("not openable in this test");
    }
}
