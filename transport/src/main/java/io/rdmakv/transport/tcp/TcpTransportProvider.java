package io.rdmakv.transport.tcp;

import io.rdmakv.transport.JvmAccess;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;

import io.rdmakv.transport.tls.TlsSettings;

import java.util.EnumSet;

/**
 * The TCP transport's entry point: always available (it needs only a socket) unless disabled by
 * {@code -Drdmakv.transport.tcp.disabled=true}. Declares SEND_RECV and READ_EMULATED (absent when
 * {@code tcp.emulatedRead=false}) with a loopback-ish performance model so that a native transport outscores it.
 */
public final class TcpTransportProvider implements TransportProvider
{
    public static final String NAME = "tcp";
    public static final String PROP_NATIVE_EPOLL = "tcp.nativeEpoll";
    /**
     * Netty's io_uring transport instead of epoll (default false): used when the kernel offers it
     * ({@code IoUring.isAvailable()}), else epoll with the reason logged. No callers' direct writes on it.
     */
    public static final String PROP_IO_URING = "tcp.ioUring";
    public static final String PROP_EMULATED_READ = "tcp.emulatedRead";
    public static final String PROP_IO_THREADS = "tcp.ioThreads";
    public static final String PROP_MAX_READ_BYTES = "tcp.maxReadBytes";
    /** Microseconds an event loop keeps polling after its last I/O or task before it blocks (0: block at once). */
    public static final String PROP_SPIN_MICROS = "tcp.spinMicros";
    /** The default of {@link #PROP_SPIN_MICROS}; the JVM property {@code rdmakv.transport.tcp.spinMicros} overrides. */
    public static final int DEFAULT_SPIN_MICROS = 0;
    /**
     * Whether a connecting endpoint's frames posted from a thread other than its event loop are written to the socket
     * by that thread while the loop has none of the endpoint's bytes in hand ({@link TcpOutbound}); default true,
     * epoll only.
     */
    public static final String PROP_DIRECT_WRITES = "tcp.directWrites";
    /**
     * A caller writes directly only when the last direct write of its endpoint ended at least this long ago (us,
     * default {@value #DEFAULT_DIRECT_WRITE_GAP_MICROS}); posts that follow each other closer (a pipelining caller,
     * many threads at once) join one batch the event loop writes, as before. A request-response caller's next
     * request comes a round trip later.
     */
    public static final String PROP_DIRECT_WRITE_GAP_MICROS = "tcp.directWriteGapMicros";
    public static final int DEFAULT_DIRECT_WRITE_GAP_MICROS = 20;
    /**
     * Whether a caller writes directly while frames it sent earlier are still unanswered (more frames have gone out on
     * the endpoint than have come in); default false: then its post joins the loop's batch (many callers at once, or
     * one pipelining: YCSB C at 16 threads 0.57x redis with direct writes in that case, 0.71-0.74x without).
     */
    public static final String PROP_DIRECT_WRITES_WHEN_BUSY = "tcp.directWritesWhenBusy";
    public static final int DEFAULT_MAX_READ_BYTES = 1 << 20;

    /** Modelled small-message one-way latency over a kernel TCP stack (loopback-ish), for scoring. */
    static final double LATENCY_NANOS = 25_000;
    /** Modelled bandwidth, for scoring. */
    static final double BANDWIDTH_BYTES_PER_SECOND = 1.0e9;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String unavailabilityCause()
    {
        return TransportProvider.isDisabledByProperty(NAME) ? "disabled by -Drdmakv.transport.tcp.disabled=true" : null;
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilitiesFor(TransportConfig.defaults());
    }

    static TransportCapabilities capabilitiesFor(final TransportConfig config)
    {
        final EnumSet<TransportCapability> flags = EnumSet.of(TransportCapability.SEND_RECV);
        if (!TlsSettings.of(config.properties()).enabled())
        {
            flags.add(TransportCapability.CALLER_LANES); // a lane is a plain socket of its own: no TLS
        }
        if (config.booleanProperty(PROP_EMULATED_READ, true))
        {
            flags.add(TransportCapability.READ_EMULATED);
        }
        return new TransportCapabilities(flags, config.maxMessageBytes(),
            config.intProperty(PROP_MAX_READ_BYTES, DEFAULT_MAX_READ_BYTES), config.maxInflightPerEndpoint(),
            LATENCY_NANOS, BANDWIDTH_BYTES_PER_SECOND);
    }

    @Override
    public Transport open(final TransportConfig config)
    {
        // Every buffer of a transport is Agrona's: say which JVM flag is missing before the first one fails.
        JvmAccess.ensureAgronaAccess();
        if (!isAvailable())
        {
            throw new TransportException("tcp transport unavailable: " + unavailabilityCause());
        }
        return new TcpTransport(config == null ? TransportConfig.defaults() : config);
    }
}
