package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClientDiagnostics;
import io.rdmakv.transport.Transport;

import java.util.Map;
import java.util.function.IntSupplier;

/** The client's {@link KvClientDiagnostics}: read-only views of what the runtime chose and counts. */
final class ClientDiagnostics implements KvClientDiagnostics
{
    private final Transport transport;
    private final String selection;
    private final GetMode getMode;
    private final ClientCounters counters;
    private final IntSupplier queued;

    ClientDiagnostics(final Transport transport, final String selection, final GetMode getMode,
        final ClientCounters counters, final IntSupplier queued)
    {
        this.transport = transport;
        this.selection = selection;
        this.getMode = getMode;
        this.counters = counters;
        this.queued = queued;
    }

    @Override
    public String transport()
    {
        return transport.name();
    }

    @Override
    public String transportSelection()
    {
        return selection;
    }

    @Override
    public GetMode getMode()
    {
        return getMode;
    }

    @Override
    public GetMode autoGetMode()
    {
        return ClientRuntime.resolve(GetMode.AUTO, transport.capabilities());
    }

    @Override
    public long registrationCount()
    {
        return transport.memoryDomain().registrationCount();
    }

    @Override
    public Map<ClientCounter, Long> counters()
    {
        return counters.snapshot();
    }

    @Override
    public long counter(final ClientCounter counter)
    {
        return counters.get(counter);
    }

    @Override
    public int queuedRequests()
    {
        return queued.getAsInt();
    }
}
